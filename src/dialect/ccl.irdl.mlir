// The `ccl` dialect, declared in IRDL. This file is the single source of the
// dialect: `ccl-opt` loads it when a context is made, and upstream
// `mlir-opt --irdl-file=src/dialect/ccl.irdl.mlir` accepts the same programs.
//
// IRDL constraint variables bind: one SSA constraint used by two operands
// forces both to the same type. Each operand that may differ gets its own.
//
// "integer" (DIALECT.md) is a signless integer wider than i1, or `index`;
// IRDL has no negation, so the accepted widths are listed: i8, i16, i32,
// i64, i128 and index. `i1` and floats fail verification.
irdl.dialect @ccl {
  // #ccl.window: the memory space of a window-bound (peer-visible) buffer.
  irdl.attribute @window {
    irdl.parameters()
  }

  irdl.operation @tile_store {
    %tile = irdl.any
    %dst = irdl.base "!builtin.memref"
    %index = irdl.is index
    irdl.operands(tile: %tile, dst: %dst, indices: variadic %index)
    irdl.results()
  }

  irdl.operation @tensor_write {
    %dst = irdl.base "!builtin.memref"
    %value = irdl.any
    %index = irdl.is index
    irdl.operands(dst: %dst, value: %value, indices: variadic %index)
    irdl.results()
  }

  irdl.operation @get {
    %dst = irdl.base "!builtin.memref"
    %src = irdl.base "!builtin.memref"
    %i8 = irdl.is i8
    %i16 = irdl.is i16
    %i32 = irdl.is i32
    %i64 = irdl.is i64
    %i128 = irdl.is i128
    %idx = irdl.is index
    %peer = irdl.any_of(%i8, %i16, %i32, %i64, %i128, %idx)
    irdl.operands(dst: %dst, src: %src, peer: %peer)
    irdl.results()
  }

  irdl.operation @remote_store {
    %tile = irdl.any
    %dst = irdl.base "!builtin.memref"
    %i8 = irdl.is i8
    %i16 = irdl.is i16
    %i32 = irdl.is i32
    %i64 = irdl.is i64
    %i128 = irdl.is i128
    %idx = irdl.is index
    %peer = irdl.any_of(%i8, %i16, %i32, %i64, %i128, %idx)
    irdl.operands(tile: %tile, dst: %dst, peer: %peer)
    irdl.results()
  }

  irdl.operation @put {
    %dst = irdl.base "!builtin.memref"
    %src = irdl.base "!builtin.memref"
    %i8 = irdl.is i8
    %i16 = irdl.is i16
    %i32 = irdl.is i32
    %i64 = irdl.is i64
    %i128 = irdl.is i128
    %idx = irdl.is index
    %peer = irdl.any_of(%i8, %i16, %i32, %i64, %i128, %idx)
    irdl.operands(dst: %dst, src: %src, peer: %peer)
    irdl.results()
  }

  irdl.operation @remote_load {
    %src = irdl.base "!builtin.memref"
    %i8 = irdl.is i8
    %i16 = irdl.is i16
    %i32 = irdl.is i32
    %i64 = irdl.is i64
    %i128 = irdl.is i128
    %idx = irdl.is index
    %peer = irdl.any_of(%i8, %i16, %i32, %i64, %i128, %idx)
    %tile = irdl.any
    irdl.operands(src: %src, peer: %peer)
    irdl.results(tile: %tile)
  }

  irdl.operation @tile_load {
    %src = irdl.base "!builtin.memref"
    %index = irdl.is index
    %tile = irdl.any
    irdl.operands(src: %src, indices: variadic %index)
    irdl.results(tile: %tile)
  }

  irdl.operation @read {
    %src = irdl.base "!builtin.memref"
    %index = irdl.is index
    %scalar = irdl.any
    irdl.operands(src: %src, indices: variadic %index)
    irdl.results(scalar: %scalar)
  }

  irdl.operation @notify {
    %signal = irdl.base "!builtin.memref"
    %i8 = irdl.is i8
    %i16 = irdl.is i16
    %i32 = irdl.is i32
    %i64 = irdl.is i64
    %i128 = irdl.is i128
    %idx = irdl.is index
    %peer = irdl.any_of(%i8, %i16, %i32, %i64, %i128, %idx)
    %j8 = irdl.is i8
    %j16 = irdl.is i16
    %j32 = irdl.is i32
    %j64 = irdl.is i64
    %j128 = irdl.is i128
    %jdx = irdl.is index
    %value = irdl.any_of(%j8, %j16, %j32, %j64, %j128, %jdx)
    %set = irdl.is "set"
    %add = irdl.is "atomic_add"
    %op = irdl.any_of(%set, %add)
    irdl.operands(signal: %signal, peer: %peer, value: %value)
    irdl.results()
    irdl.attributes {"op" = %op}
  }

  irdl.operation @wait {
    %signal = irdl.base "!builtin.memref"
    %i8 = irdl.is i8
    %i16 = irdl.is i16
    %i32 = irdl.is i32
    %i64 = irdl.is i64
    %i128 = irdl.is i128
    %idx = irdl.is index
    %expected = irdl.any_of(%i8, %i16, %i32, %i64, %i128, %idx)
    %ge = irdl.is "ge"
    %eq = irdl.is "eq"
    %cmp = irdl.any_of(%ge, %eq)
    irdl.operands(signal: %signal, expected: %expected)
    irdl.results()
    irdl.attributes {"cmp" = %cmp}
  }

  irdl.operation @fence {
    irdl.operands()
    irdl.results()
  }

  irdl.operation @cacheinvalid {
    %target = irdl.base "!builtin.memref"
    irdl.operands(target: optional %target)
    irdl.results()
  }

  // IRDL binds a constraint variable once per op, variadic elements
  // included: all `args` of one submit share a type, and so do its results.
  // (IRDL has no per-element fresh variable.)
  irdl.operation @submit {
    %arg = irdl.any
    %res = irdl.any
    %callee = irdl.base "#builtin.symbol_ref"
    irdl.operands(args: variadic %arg)
    irdl.results(results: variadic %res)
    irdl.attributes {"callee" = %callee}
  }

  // `launch_width` (set by ccl-admit-launch-width) and `signal_stride` are
  // optional i64 attributes: IRDL lists only required attributes, so the
  // passes check their type.
  irdl.operation @all_to_all_v {
    %send = irdl.base "!builtin.memref"
    %send_counts = irdl.base "!builtin.memref"
    %recv = irdl.base "!builtin.memref"
    %recv_counts = irdl.base "!builtin.memref"
    %i8 = irdl.is i8
    %i16 = irdl.is i16
    %i32 = irdl.is i32
    %i64 = irdl.is i64
    %i128 = irdl.is i128
    %idx = irdl.is index
    %blocks = irdl.any_of(%i8, %i16, %i32, %i64, %i128, %idx)
    irdl.operands(send: %send, send_counts: %send_counts, recv: %recv, recv_counts: %recv_counts, blocks: %blocks)
    irdl.results()
  }

  irdl.operation @all_reduce {
    %src = irdl.base "!builtin.memref"
    %dst = irdl.base "!builtin.memref"
    %sum = irdl.is "sum"
    %max = irdl.is "max"
    %min = irdl.is "min"
    %reduce = irdl.any_of(%sum, %max, %min)
    irdl.operands(src: %src, dst: %dst)
    irdl.results()
    irdl.attributes {"reduce" = %reduce}
  }

  irdl.operation @barrier {
    irdl.operands()
    irdl.results()
  }

  // p and l may differ in type; b has the type of l (one bound variable).
  irdl.operation @cal_all_to_all_v_blocks {
    %i8 = irdl.is i8
    %i16 = irdl.is i16
    %i32 = irdl.is i32
    %i64 = irdl.is i64
    %i128 = irdl.is i128
    %idx = irdl.is index
    %p = irdl.any_of(%i8, %i16, %i32, %i64, %i128, %idx)
    %j8 = irdl.is i8
    %j16 = irdl.is i16
    %j32 = irdl.is i32
    %j64 = irdl.is i64
    %j128 = irdl.is i128
    %jdx = irdl.is index
    %l = irdl.any_of(%j8, %j16, %j32, %j64, %j128, %jdx)
    irdl.operands(p: %p, l: %l)
    irdl.results(b: %l)
  }

  irdl.operation @comm_size {
    %i8 = irdl.is i8
    %i16 = irdl.is i16
    %i32 = irdl.is i32
    %i64 = irdl.is i64
    %i128 = irdl.is i128
    %idx = irdl.is index
    %size = irdl.any_of(%i8, %i16, %i32, %i64, %i128, %idx)
    irdl.operands()
    irdl.results(size: %size)
  }

  irdl.operation @rank {
    %i8 = irdl.is i8
    %i16 = irdl.is i16
    %i32 = irdl.is i32
    %i64 = irdl.is i64
    %i128 = irdl.is i128
    %idx = irdl.is index
    %rank = irdl.any_of(%i8, %i16, %i32, %i64, %i128, %idx)
    irdl.operands()
    irdl.results(rank: %rank)
  }
}
