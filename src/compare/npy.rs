//! A small reader for NumPy `.npy` files: format versions 1–3, little-endian (or byte-sized)
//! integer, float and bool dtypes, C order. Everything becomes `f64` for comparison.

use super::Array;

/// The largest header this reader accepts (numpy itself refuses headers over 10 000 bytes
/// unless told otherwise).
pub const MAX_HEADER: usize = 1 << 20;

/// Parses `.npy` bytes. Never panics: every offset and size is checked, and a header that
/// promises more data than the file holds is an error.
pub fn parse(bytes: &[u8]) -> Result<Array, String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not a .npy file (no \\x93NUMPY magic)".into());
    }
    let major = bytes[6];
    let (hlen, start) = match major {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 => {
            if bytes.len() < 12 {
                return Err("truncated .npy header".into());
            }
            (
                u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
                12,
            )
        }
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
    let header = std::str::from_utf8(header).map_err(|_| "the .npy header is not text")?;
    let descr = dict_str(header, "descr").ok_or("the .npy header has no 'descr'")?;
    if dict_raw(header, "fortran_order").is_some_and(|v| v.starts_with("True")) {
        return Err(
            "Fortran-order .npy arrays are not supported: save with np.ascontiguousarray".into(),
        );
    }
    let shape = parse_shape(dict_raw(header, "shape").ok_or("the .npy header has no 'shape'")?)?;
    let n = shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| format!("the .npy shape {shape:?} has more elements than fit in memory"))?;
    let data = &bytes[start + hlen..];
    let values = decode(&descr, data, n)?;
    Ok(Array {
        shape,
        data: values,
    })
}

fn decode(descr: &str, data: &[u8], n: usize) -> Result<Vec<f64>, String> {
    let unsupported = || {
        format!(
            "dtype {} is not supported (f2/f4/f8, i1–i8, u1–u8, b1 are)",
            super::load::excerpt(descr)
        )
    };
    let (order, kind) = match descr.as_bytes().first() {
        Some(b'<' | b'>' | b'|' | b'=') => descr.split_at(1),
        _ => return Err(unsupported()),
    };
    let size: usize = match kind {
        "f8" | "i8" | "u8" => 8,
        "f4" | "i4" | "u4" => 4,
        "f2" | "i2" | "u2" => 2,
        "i1" | "u1" | "b1" => 1,
        _ => return Err(unsupported()),
    };
    if order == ">" && size > 1 {
        return Err(format!(
            "big-endian dtype {descr} is not supported: save with .astype('<{kind}')"
        ));
    }
    let need = n.checked_mul(size).ok_or_else(|| {
        format!("the .npy shape promises {n} values of {size} bytes, more than fit in memory")
    })?;
    if data.len() < need {
        return Err(format!(
            "the .npy data is truncated: {n} values of {size} bytes need {need} bytes, found {}",
            data.len()
        ));
    }
    let chunks = data[..need].chunks_exact(size);
    let v: Vec<f64> = match kind {
        "f8" => chunks
            .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect(),
        "f4" => chunks
            .map(|c| f32::from_le_bytes(c.try_into().unwrap_or([0; 4])) as f64)
            .collect(),
        "f2" => chunks
            .map(|c| half_to_f64(u16::from_le_bytes([c[0], c[1]])))
            .collect(),
        "i8" => chunks
            .map(|c| i64::from_le_bytes(c.try_into().unwrap_or([0; 8])) as f64)
            .collect(),
        "i4" => chunks
            .map(|c| i32::from_le_bytes(c.try_into().unwrap_or([0; 4])) as f64)
            .collect(),
        "i2" => chunks
            .map(|c| i16::from_le_bytes([c[0], c[1]]) as f64)
            .collect(),
        "i1" => chunks.map(|c| c[0] as i8 as f64).collect(),
        "u8" => chunks
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])) as f64)
            .collect(),
        "u4" => chunks
            .map(|c| u32::from_le_bytes(c.try_into().unwrap_or([0; 4])) as f64)
            .collect(),
        "u2" => chunks
            .map(|c| u16::from_le_bytes([c[0], c[1]]) as f64)
            .collect(),
        _ => chunks.map(|c| c[0] as f64).collect(), // u1, b1
    };
    Ok(v)
}

/// IEEE 754 binary16 → f64.
fn half_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as i32;
    let frac = (h & 0x3ff) as f64;
    sign * match exp {
        0 => frac * 2f64.powi(-24),
        31 if frac == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        e => (1.0 + frac / 1024.0) * 2f64.powi(e - 15),
    }
}

/// The raw text after `'key':` in the header dict.
fn dict_raw<'a>(header: &'a str, key: &str) -> Option<&'a str> {
    let pat = format!("'{key}'");
    let rest = &header[header.find(&pat)? + pat.len()..];
    Some(rest.trim_start().strip_prefix(':')?.trim_start())
}

fn dict_str(header: &str, key: &str) -> Option<String> {
    let raw = dict_raw(header, key)?;
    let q = raw.chars().next()?;
    if q != '\'' && q != '"' {
        return None;
    }
    let inner = &raw[1..];
    Some(inner[..inner.find(q)?].to_string())
}

fn parse_shape(raw: &str) -> Result<Vec<usize>, String> {
    let inner = raw
        .strip_prefix('(')
        .and_then(|r| r.split(')').next())
        .ok_or("the .npy shape is not a tuple")?;
    inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.trim_end_matches('L')
                .parse::<usize>()
                .map_err(|_| format!("bad .npy shape entry `{}`", super::load::excerpt(s)))
        })
        .collect()
}

/// Writes a version-1 `.npy` of little-endian f8 or f4 (tests and fixtures).
pub fn write_f64(shape: &[usize], data: &[f64], f4: bool) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape_s = if dims.len() == 1 {
        format!("({},)", dims[0])
    } else {
        format!("({})", dims.join(", "))
    };
    let mut header = format!(
        "{{'descr': '<{}', 'fortran_order': False, 'shape': {shape_s}, }}",
        if f4 { "f4" } else { "f8" }
    );
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((header.len() as u16).to_le_bytes());
    out.extend(header.as_bytes());
    for &v in data {
        if f4 {
            out.extend((v as f32).to_le_bytes());
        } else {
            out.extend(v.to_le_bytes());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_it_writes() {
        let b = write_f64(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, f64::NAN], false);
        let a = parse(&b).unwrap();
        assert_eq!(a.shape, [2, 3]);
        assert_eq!(a.data[..5], [1.0, 2.0, 3.0, 4.0, 5.0]);
        assert!(a.data[5].is_nan());
        let a = parse(&write_f64(&[3], &[0.5, 1.5, 2.5], true)).unwrap();
        assert_eq!((a.shape, a.data), (vec![3], vec![0.5, 1.5, 2.5]));
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
            "{'descr': '<f8', 'shape': (4294967296, 4294967296, 4294967296)}",
            "{'descr': '<f8', 'shape': (3037000500, 3037000500)}",
            "{'descr': '<f8', 'shape': (-1,)}",
            "{'descr': '<f8', 'shape': 7}",
            "{'descr': '<f8', 'shape': (99999999999999999999999,)}",
            "{'descr': '<U4', 'shape': (1,)}",
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

    #[test]
    fn reads_int_and_half_and_rejects_fortran() {
        let mut b = b"\x93NUMPY\x01\x00".to_vec();
        let h = "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }\n";
        b.extend((h.len() as u16).to_le_bytes());
        b.extend(h.as_bytes());
        b.extend(7i32.to_le_bytes());
        b.extend((-2i32).to_le_bytes());
        assert_eq!(parse(&b).unwrap().data, [7.0, -2.0]);
        assert_eq!(half_to_f64(0x3c00), 1.0);
        assert_eq!(half_to_f64(0xc000), -2.0);
        let fortran = [
            &b[..10],
            h.replace("False", "True ").as_bytes(),
            &b[10 + h.len()..],
        ]
        .concat();
        assert!(parse(&fortran).unwrap_err().contains("Fortran"));
        assert!(parse(b"not npy").is_err());
    }
}
