//! NumPy `.npy` files through the `npyz` crate: format versions 1–3, either byte order, C or
//! Fortran order, integer, float (f2/f4/f8) and bool dtypes. Everything becomes `f64` in C
//! order for comparison, and the dtype is kept so that reports show what was compared.
//!
//! `npyz` trusts its input more than `compare` may: it allocates the header length a file
//! claims, multiplies shape entries without overflow checks, and sizes its output by the shape.
//! A thin check in front of it refuses what could make it allocate or overflow (a header over
//! [`MAX_HEADER`] bytes or nested too deep, numbers whose product does not fit in 64 bits, a
//! shape that promises more data than the file holds), so a malformed file is an error, never a
//! panic or an unbounded allocation.

use super::Array;
use npyz::{DType, NpyFile, Order, TypeChar};

/// The largest header this reader accepts (numpy itself refuses headers over 10 000 bytes
/// unless told otherwise).
pub const MAX_HEADER: usize = 1 << 16;

/// Deepest bracket nesting accepted in a header (a real one has a dict holding a tuple).
const MAX_NESTING: usize = 8;

/// Parses `.npy` bytes. Never panics, and allocates at most about the file's size.
pub fn parse(bytes: &[u8]) -> Result<Array, String> {
    precheck(bytes)?;
    let file = NpyFile::new(bytes).map_err(|e| format!("malformed .npy header: {e}"))?;
    let h = file.header().clone();
    let DType::Plain(ts) = h.dtype() else {
        return Err("structured or array dtypes are not supported: save a plain array".into());
    };
    let (dtype, size) = match (ts.type_char(), ts.size_field()) {
        (TypeChar::Float, 2) => ("float16", 2),
        (TypeChar::Float, 4) => ("float32", 4),
        (TypeChar::Float, 8) => ("float64", 8),
        (TypeChar::Int, 1) => ("int8", 1),
        (TypeChar::Int, 2) => ("int16", 2),
        (TypeChar::Int, 4) => ("int32", 4),
        (TypeChar::Int, 8) => ("int64", 8),
        (TypeChar::Uint, 1) => ("uint8", 1),
        (TypeChar::Uint, 2) => ("uint16", 2),
        (TypeChar::Uint, 4) => ("uint32", 4),
        (TypeChar::Uint, 8) => ("uint64", 8),
        (TypeChar::Bool, 1) => ("bool", 1),
        _ => {
            return Err(format!(
                "dtype {} is not supported (f2/f4/f8, i1–i8, u1–u8, b1 are)",
                super::load::excerpt(&ts.to_string())
            ))
        }
    };
    let shape = h
        .shape()
        .iter()
        .map(|&d| usize::try_from(d).map_err(|_| format!("the .npy shape entry {d} is too large")))
        .collect::<Result<Vec<usize>, _>>()?;
    let n = h.len();
    let data_len = bytes.len().saturating_sub(header_end(bytes)) as u64;
    let need = n.checked_mul(size).ok_or_else(|| {
        format!("the .npy shape promises {n} values of {size} bytes, more than fit in memory")
    })?;
    if data_len < need {
        return Err(format!(
            "the .npy data is truncated: {n} values of {size} bytes need {need} bytes, found {data_len}"
        ));
    }
    let read = |e: std::io::Error| format!("unreadable .npy data: {e}");
    let values: Vec<f64> = match dtype {
        "float16" => floats(file.into_vec::<npyz::half::f16>().map_err(read)?, f64::from),
        "float32" => floats(file.into_vec::<f32>().map_err(read)?, f64::from),
        "float64" => file.into_vec::<f64>().map_err(read)?,
        "int8" => floats(file.into_vec::<i8>().map_err(read)?, f64::from),
        "int16" => floats(file.into_vec::<i16>().map_err(read)?, f64::from),
        "int32" => floats(file.into_vec::<i32>().map_err(read)?, f64::from),
        "int64" => floats(file.into_vec::<i64>().map_err(read)?, |v| v as f64),
        "uint8" => floats(file.into_vec::<u8>().map_err(read)?, f64::from),
        "uint16" => floats(file.into_vec::<u16>().map_err(read)?, f64::from),
        "uint32" => floats(file.into_vec::<u32>().map_err(read)?, f64::from),
        "uint64" => floats(file.into_vec::<u64>().map_err(read)?, |v| v as f64),
        _ => floats(file.into_vec::<bool>().map_err(read)?, |b| {
            f64::from(u8::from(b))
        }),
    };
    let data = match h.order() {
        Order::C => values,
        Order::Fortran => fortran_to_c(&values, &shape),
    };
    Ok(Array {
        shape,
        data,
        dtype: dtype.to_string(),
        ..Array::default()
    })
}

fn floats<T>(v: Vec<T>, f: impl Fn(T) -> f64) -> Vec<f64> {
    v.into_iter().map(f).collect()
}

/// Where the data starts: after the magic, the version, the length field and the header.
fn header_end(bytes: &[u8]) -> usize {
    match bytes.get(6) {
        Some(1) => 10 + usize::from(u16::from_le_bytes([bytes[8], bytes[9]])),
        _ => 12 + u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
    }
}

/// The thin check in front of `npyz` (see the module docs).
fn precheck(bytes: &[u8]) -> Result<(), String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not a .npy file (no \\x93NUMPY magic)".into());
    }
    let (hlen, start) = match bytes[6] {
        1 => (usize::from(u16::from_le_bytes([bytes[8], bytes[9]])), 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        2 | 3 => return Err("truncated .npy header".into()),
        v => {
            return Err(format!(
                ".npy format version {v} is not supported (1, 2, 3 are)"
            ))
        }
    };
    if hlen > MAX_HEADER {
        return Err(format!(
            "the .npy header claims {hlen} bytes (more than {MAX_HEADER})"
        ));
    }
    let header = bytes
        .get(start..start + hlen)
        .ok_or("truncated .npy header")?;
    let mut depth = 0usize;
    for &b in header {
        match b {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth > MAX_NESTING {
            return Err("the .npy header is nested too deeply".into());
        }
    }
    // Every number in the header multiplied together fits in 64 bits, so no product of shape
    // entries (with zeros skipped, as strides are computed) can overflow.
    let mut product: u64 = 1;
    for run in header
        .split(|b| !b.is_ascii_digit())
        .filter(|r| !r.is_empty())
    {
        let n = std::str::from_utf8(run)
            .ok()
            .and_then(|s| s.parse::<u64>().ok())
            .ok_or("a number in the .npy header is too large")?;
        product = product
            .checked_mul(n.max(1))
            .ok_or("the .npy shape has more elements than fit in memory")?;
    }
    Ok(())
}

/// Reorders column-major values into row-major order.
fn fortran_to_c(values: &[f64], shape: &[usize]) -> Vec<f64> {
    let mut out = Vec::with_capacity(values.len());
    // Fortran strides: the first axis is contiguous.
    let mut strides = Vec::with_capacity(shape.len());
    let mut s = 1usize;
    for &d in shape {
        strides.push(s);
        s = s.saturating_mul(d);
    }
    let mut idx = vec![0usize; shape.len()];
    for _ in 0..values.len() {
        let at: usize = idx.iter().zip(&strides).map(|(i, s)| i * s).sum();
        out.push(values[at]);
        for d in (0..shape.len()).rev() {
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}

/// Writes a `.npy` of little-endian f8 or f4 in C order (tests and fixtures).
pub fn write_f64(shape: &[usize], data: &[f64], f4: bool) -> Vec<u8> {
    write(shape, data, f4, Order::C)
}

/// Writes a `.npy` of little-endian f8 or f4 in the given order: `data` is in that order
/// (tests and fixtures).
pub fn write(shape: &[usize], data: &[f64], f4: bool, order: Order) -> Vec<u8> {
    let shape: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    let mut out = Vec::new();
    let written = if f4 {
        write_typed(&mut out, &shape, order, data.iter().map(|&v| v as f32))
    } else {
        write_typed(&mut out, &shape, order, data.iter().copied())
    };
    written.map(|()| out).unwrap_or_default()
}

fn write_typed<T: npyz::AutoSerialize>(
    out: &mut Vec<u8>,
    shape: &[u64],
    order: Order,
    data: impl IntoIterator<Item = T>,
) -> std::io::Result<()> {
    use npyz::WriterBuilder;
    let mut w = npyz::WriteOptions::<T>::new()
        .default_dtype()
        .order(order)
        .shape(shape)
        .writer(out)
        .begin_nd()?;
    w.extend(data)?;
    w.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_it_writes() {
        let b = write_f64(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, f64::NAN], false);
        let a = parse(&b).unwrap();
        assert_eq!(
            (a.shape.as_slice(), a.dtype.as_str()),
            ([2, 3].as_slice(), "float64")
        );
        assert_eq!(a.data[..5], [1.0, 2.0, 3.0, 4.0, 5.0]);
        assert!(a.data[5].is_nan());
        let a = parse(&write_f64(&[3], &[0.5, 1.5, 2.5], true)).unwrap();
        assert_eq!(
            (a.shape, a.data, a.dtype),
            (vec![3], vec![0.5, 1.5, 2.5], "float32".into())
        );
    }

    #[test]
    fn fortran_order_reads_as_c_order() {
        // [[1, 2, 3], [4, 5, 6]] stored column by column.
        let f = write(
            &[2, 3],
            &[1.0, 4.0, 2.0, 5.0, 3.0, 6.0],
            false,
            Order::Fortran,
        );
        assert!(String::from_utf8_lossy(&f).contains("'fortran_order': True"));
        let a = parse(&f).unwrap();
        assert_eq!(a.data, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        assert_eq!(fortran_to_c(&[0.0; 0], &[0, 3]), [0.0; 0]);
    }

    fn with_header(h: &str, data: &[u8]) -> Vec<u8> {
        let mut b = b"\x93NUMPY\x01\x00".to_vec();
        b.extend((h.len() as u16).to_le_bytes());
        b.extend(h.as_bytes());
        b.extend(data);
        b
    }

    #[test]
    fn malformed_headers_are_errors_not_panics() {
        for h in [
            "{'descr': '', 'shape': (1,)}",
            "{'descr': '<', 'shape': (1,)}",
            "{'descr': '<f0', 'shape': (1,)}",
            "{'descr': 'é4', 'shape': (1,)}",
            "{'descr': é, 'shape': (1,)}",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296)}",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4294967296, 4294967296)}",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (3037000500, 3037000500)}",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (-1,)}",
            "{'descr': '<f8', 'fortran_order': False, 'shape': 7}",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999,)}",
            "{'descr': '<U4', 'fortran_order': False, 'shape': (1,)}",
            "{'descr': '|O', 'fortran_order': False, 'shape': (1,)}",
            "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1,)}",
            "{'descr': '<f8', 'fortran_order': False, 'shape': ((((((((((1,),),),),),),),),),)}",
            "{'descr",
        ] {
            assert!(parse(&with_header(h, &[0; 16])).is_err(), "{h}");
        }
        // A version-2 header length past the end, and past the limit.
        let mut b = b"\x93NUMPY\x02\x00".to_vec();
        b.extend(u32::MAX.to_le_bytes());
        assert!(parse(&b).is_err());
        for n in 0..12 {
            let _ = parse(&b"\x93NUMPY\x01\x00\xff\xff{'descr'"[..n]);
        }
    }

    /// Random bytes written over a valid file's header never make `npyz` panic or allocate
    /// past what the file holds: the thin check in front holds up.
    #[test]
    fn mutated_headers_never_panic() {
        let good = write(
            &[3, 2],
            &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
            false,
            Order::Fortran,
        );
        let digits = b"0123456789(),:' TF[]{}<>|";
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..4000 {
            let mut b = good.clone();
            for _ in 0..1 + next() % 4 {
                let at = 8 + (next() as usize) % (b.len() - 8);
                b[at] = digits[(next() as usize) % digits.len()];
            }
            if next() % 5 == 0 {
                b.truncate((next() as usize) % b.len());
            }
            let _ = parse(&b);
        }
    }

    #[test]
    fn reads_int_bool_half_and_big_endian() {
        let h = "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }\n";
        let b = with_header(h, &[7i32.to_le_bytes(), (-2i32).to_le_bytes()].concat());
        let a = parse(&b).unwrap();
        assert_eq!((a.data, a.dtype), (vec![7.0, -2.0], "int32".into()));
        let h = "{'descr': '>f2', 'fortran_order': False, 'shape': (2,), }\n";
        let a = parse(&with_header(h, &[0x3c, 0x00, 0xc0, 0x00])).unwrap();
        assert_eq!((a.data, a.dtype), (vec![1.0, -2.0], "float16".into()));
        let h = "{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }\n";
        assert_eq!(parse(&with_header(h, &[1, 0])).unwrap().data, [1.0, 0.0]);
        assert!(parse(b"not npy").is_err());
    }
}
