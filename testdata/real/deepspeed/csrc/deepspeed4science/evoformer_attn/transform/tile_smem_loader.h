// Source: https://github.com/microsoft/DeepSpeed/blob/38327e07f6cd39b63418f60cedd1651b0be3e7c3/csrc/deepspeed4science/evoformer_attn/transform/tile_smem_loader.h (lines 38-57).
// Licence: BSD-3-Clause, Copyright (c) 2017 - 2023 NVIDIA CORPORATION & AFFILIATES; Copyright (c) Microsoft Corporation.
// Labels (`expect` comments) added by hipport: a kernel component written on CUTLASS is one decision (the first HP603).
#pragma once
#include <cutlass/cutlass.h>  // expect-ok: folded into the component's first HP603
#include "cutlass/aligned_buffer.h"  // expect: HP603 library REMEDIATION
#include "cutlass/array.h"  // expect-ok: folded into the component's first HP603
#include "cutlass/coord.h"  // expect-ok: folded into the component's first HP603
#include "cutlass/layout/matrix.h"  // expect-ok: folded into the component's first HP603
#include "cutlass/layout/pitch_linear.h"  // expect-ok: folded into the component's first HP603
#include "cutlass/numeric_types.h"  // expect-ok: folded into the component's first HP603
#include "cutlass/platform/platform.h"  // expect-ok: folded into the component's first HP603
#include "cutlass/transform/pitch_linear_thread_map.h"  // expect-ok: folded into the component's first HP603
#include "cutlass/transform/threadblock/predicated_tile_iterator.h"  // expect-ok: folded into the component's first HP603
#include "cutlass/transform/threadblock/regular_tile_iterator.h"  // expect-ok: folded into the component's first HP603

template <typename scalar_t,              // scalar type
          typename ThreadblockTileShape,  // size of tile to load
          int Threads,                    // number of participating threads
          int ElementsPerAccess>          // thread access width in elements
class TileSmemLoader {
public:
    using Shape = ThreadblockTileShape;
    using SmemTile = cutlass::AlignedBuffer<scalar_t, ThreadblockTileShape::kCount>;  // expect-ok: folded into the component's first HP603
