//===- Ccl.td - the ccl dialect -------------------------------------------===//
//
// The one definition of the `ccl` dialect: its ops, the `#ccl.window` memory
// space, the enum attributes, the custom syntax and the reference docs
// (docs/dialect/ccl.md is generated from this file).
//
// build.rs compiles it three ways: mlir-tblgen's C++ for the dialect linked
// into every cclir binary and the mlir-opt plugin; the Rust typed views the
// passes use (dialect/build/views.rs, through llvm-tblgen --dump-json); and
// -gen-dialect-doc for the reference.
//
// Every op that moves data or synchronises keeps MLIR's default "unknown
// memory effects": upstream passes (cse, canonicalize, licm) must never
// merge, drop or move a marker, a signal or a write. Only the ops that
// compute a value from nothing but their operands are `Pure`.
//
//===----------------------------------------------------------------------===//

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"

//===----------------------------------------------------------------------===//
// Dialect
//===----------------------------------------------------------------------===//

def Ccl_Dialect : Dialect {
  let name = "ccl";
  let cppNamespace = "::mlir::ccl";
  let summary = "Collective communication between the ranks of a distributed accelerator";
  let description = [{
    The `ccl` dialect describes programs that move data between the ranks of
    a multi-rank NPU: one rank per device, peer-visible *window* buffers,
    notify/wait signals, and collectives such as `all_to_all_v`.

    Kernels (device code) and orchestration code (host code launching them)
    are `func.func`s told apart by the discardable attribute `ccl.kind`:
    `"incore"`, `"aic"`, `"aiv"` are device kernels (*InCore*);
    `"orchestration"` and `"graph"` are orchestration-like, as is a function
    with `ccl.level = "host"` and `ccl.role = "orchestrator"`; `"group"`,
    `"spmd"` and `"opaque"` (the default) are neither. A function with
    `ccl.builtin_template_dir` is a synthesized collective kernel: calling it
    publishes data.

    The hardware does not keep caches coherent: the memory-consistency
    markers `ccl.cacheinvalid` and `ccl.fence` order data before signals.
    `ccl-insert-comm-fence` places them, `ccl-verify-comm-order` proves them
    sufficient, and `ccl-sim` runs a program over P ranks to find the races
    they prevent (docs/semantics.md).

    An *integer* operand or result (a peer, a count, a width) is a signless
    integer wider than `i1` (`i8`, `i24`, `i64`, ...) or `index`. An op that
    indexes a ranked memref takes one index per dimension.

    The discardable attribute `ccl.launch_width` (on a `func.call` launching
    a kernel, or on the kernel's `func.func`) is the number of blocks the
    kernel runs as: the verifier requires a positive integer.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
}

class Ccl_Op<string mnemonic, list<Trait> traits = []>
    : Op<Ccl_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Types and attributes
//===----------------------------------------------------------------------===//

def Ccl_IntegerPred : Or<[And<[CPred<"::llvm::isa<::mlir::IntegerType>($_self)">,
                                CPred<"::llvm::cast<::mlir::IntegerType>($_self).isSignless()">,
                                CPred<"::llvm::cast<::mlir::IntegerType>($_self).getWidth() > 1">]>,
                           CPred<"::llvm::isa<::mlir::IndexType>($_self)">]>;

def Ccl_Integer : Type<Ccl_IntegerPred, "signless integer wider than i1, or index">;

// Any memref, ranked or not. Written as two TypeID checks: the upstream
// `AnyRankedOrUnrankedMemRef` also fetches the element type through the
// ShapedType interface to test it against `AnyType`, a lookup that was the
// largest single cost of verifying ccl ops (every verify-each pays it).
def Ccl_BufferPred : Or<[IsMemRefTypePred, IsUnrankedMemRefTypePred]>;
def Ccl_Buffer : Type<Ccl_BufferPred, "memref">;

// A signal: a memref whose elements are integers (as Ccl_Integer).
def Ccl_Signal : Type<
    And<[Ccl_BufferPred,
         SubstLeaves<"$_self", "::llvm::cast<::mlir::BaseMemRefType>($_self).getElementType()", Ccl_IntegerPred>]>,
    "memref of signless integers wider than i1, or index">;

def Ccl_WindowAttr : AttrDef<Ccl_Dialect, "Window"> {
  let mnemonic = "window";
  let summary = "The memory space of a peer-visible (window-bound) buffer";
  let description = [{
    `memref<..., #ccl.window>` is window-bound: peers read and write it
    remotely, so a write into it publishes data. A view (`memref.subview`,
    `memref.cast`, `memref.collapse_shape`, `memref.expand_shape`) of a
    window-bound memref is window-bound. Buffers are symmetric: every rank
    has its own copy of each window, at the same place.
  }];
}

// The enum attributes print as a bare keyword (`ccl.notify set ...`); their
// generic form is `#ccl<notify_kind set>`. An enum attribute prints its own
// leading space, so the op formats put them right after the op name with
// `` (no second space).
def Ccl_NotifyOpKind : I32Enum<"NotifyKind", "ccl.notify kind: set or atomic_add", [
    I32EnumCase<"set", 0>,
    I32EnumCase<"atomic_add", 1>]> {
  let cppNamespace = "::mlir::ccl";
}
def Ccl_NotifyKindAttr : EnumAttr<Ccl_Dialect, Ccl_NotifyOpKind, "notify_kind">;

def Ccl_WaitCmp : I32Enum<"WaitCmp", "ccl.wait comparison: ge or eq", [
    I32EnumCase<"ge", 0>,
    I32EnumCase<"eq", 1>]> {
  let cppNamespace = "::mlir::ccl";
}
def Ccl_WaitCmpAttr : EnumAttr<Ccl_Dialect, Ccl_WaitCmp, "wait_cmp">;

def Ccl_ReduceKind : I32Enum<"ReduceKind", "ccl.all_reduce reduction: sum, max or min", [
    I32EnumCase<"sum", 0>,
    I32EnumCase<"max", 1>,
    I32EnumCase<"min", 2>]> {
  let cppNamespace = "::mlir::ccl";
}
def Ccl_ReduceKindAttr : EnumAttr<Ccl_Dialect, Ccl_ReduceKind, "reduce_kind">;

//===----------------------------------------------------------------------===//
// Local writes (a local publish when the destination is window-bound)
//===----------------------------------------------------------------------===//

def Ccl_TileStoreOp : Ccl_Op<"tile_store"> {
  let summary = "Store a tile into a GM buffer";
  let description = [{
    Writes the elements of `tile` (as many contiguous elements as it holds)
    into `dst`, starting at `indices`. The write goes into this block's
    cache: nobody else sees it until a `ccl.cacheinvalid` writes it back.
    Into a window-bound `dst` it is a *local publish*: it must be followed by
    `ccl.cacheinvalid %dst` then `ccl.fence` before any `ccl.notify` or the
    kernel's return.

    ```mlir
    ccl.tile_store %tile, %dst[%i, %j] : vector<16xf32>, memref<64x16xf32, #ccl.window>
    ```
  }];
  let arguments = (ins AnyType:$tile, Ccl_Buffer:$dst, Variadic<Index>:$indices);
  let assemblyFormat = "$tile `,` $dst `[` $indices `]` attr-dict `:` type($tile) `,` type($dst)";
  let hasVerifier = 1;
}

def Ccl_TensorWriteOp : Ccl_Op<"tensor_write"> {
  let summary = "Write one element into a GM buffer";
  let description = [{
    Writes `value` into `dst` at `indices`, through this block's cache. A
    local publish when `dst` is window-bound.

    ```mlir
    ccl.tensor_write %dst[%i], %value : memref<64xf32, #ccl.window>, f32
    ```
  }];
  let arguments = (ins Ccl_Buffer:$dst, AnyType:$value, Variadic<Index>:$indices);
  let assemblyFormat = "$dst `[` $indices `]` `,` $value attr-dict `:` type($dst) `,` type($value)";
  let hasVerifier = 1;
}

def Ccl_GetOp : Ccl_Op<"get"> {
  let summary = "Copy a peer's buffer into a local one";
  let description = [{
    Copies the whole of `src` as held by rank `peer` into this rank's `dst`.
    The destination is written through this block's cache, so into a
    window-bound `dst` it is a local publish.

    ```mlir
    ccl.get %dst, %src, %peer : memref<64xf32, #ccl.window>, memref<64xf32, #ccl.window>, i32
    ```
  }];
  let arguments = (ins Ccl_Buffer:$dst, Ccl_Buffer:$src, Ccl_Integer:$peer);
  let assemblyFormat = "$dst `,` $src `,` $peer attr-dict `:` type($dst) `,` type($src) `,` type($peer)";
}

//===----------------------------------------------------------------------===//
// Remote writes (a remote publish)
//===----------------------------------------------------------------------===//

def Ccl_RemoteStoreOp : Ccl_Op<"remote_store"> {
  let summary = "Store a tile into a peer's window";
  let description = [{
    Sends the elements of `tile` toward rank `peer`'s copy of `dst`. The
    write is in flight until it lands; a `ccl.fence` waits for it, so a
    remote publish must be followed by a fence before any `ccl.notify`.

    ```mlir
    ccl.remote_store %tile, %dst, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
    ```
  }];
  let arguments = (ins AnyType:$tile, Ccl_Buffer:$dst, Ccl_Integer:$peer);
  let assemblyFormat = "$tile `,` $dst `,` $peer attr-dict `:` type($tile) `,` type($dst) `,` type($peer)";
}

def Ccl_PutOp : Ccl_Op<"put"> {
  let summary = "Copy a local buffer into a peer's window";
  let description = [{
    Copies the whole of this rank's `src` into rank `peer`'s copy of `dst`,
    as in-flight writes: a remote publish, fenced before any `ccl.notify`.
    `dst` and `src` are often `memref.subview` slices.

    ```mlir
    ccl.put %dst, %src, %peer : memref<64xf32, #ccl.window>, memref<64xf32>, i32
    ```
  }];
  let arguments = (ins Ccl_Buffer:$dst, Ccl_Buffer:$src, Ccl_Integer:$peer);
  let assemblyFormat = "$dst `,` $src `,` $peer attr-dict `:` type($dst) `,` type($src) `,` type($peer)";
}

//===----------------------------------------------------------------------===//
// GM reads
//===----------------------------------------------------------------------===//

def Ccl_RemoteLoadOp : Ccl_Op<"remote_load"> {
  let summary = "Read a peer's buffer";
  let description = [{
    Reads rank `peer`'s copy of `src` (a scalar result for a one-element
    memref). A GM read: after a `ccl.wait` it needs a whole-GM
    `ccl.cacheinvalid` first.

    ```mlir
    %t = ccl.remote_load %src, %peer : memref<64xf32, #ccl.window>, i32 -> vector<16xf32>
    ```
  }];
  let arguments = (ins Ccl_Buffer:$src, Ccl_Integer:$peer);
  let results = (outs AnyType:$tile);
  let assemblyFormat = "$src `,` $peer attr-dict `:` type($src) `,` type($peer) `->` type($tile)";
}

def Ccl_TileLoadOp : Ccl_Op<"tile_load"> {
  let summary = "Load a tile from a GM buffer";
  let description = [{
    Reads as many contiguous elements as `tile` holds from `src`, starting at
    `indices`, through this block's cache (a stale line is returned as it
    is). A GM read.

    ```mlir
    %t = ccl.tile_load %src[%i] : memref<64xf32> -> vector<16xf32>
    ```
  }];
  let arguments = (ins Ccl_Buffer:$src, Variadic<Index>:$indices);
  let results = (outs AnyType:$tile);
  let assemblyFormat = "$src `[` $indices `]` attr-dict `:` type($src) `->` type($tile)";
  let hasVerifier = 1;
}

def Ccl_ReadOp : Ccl_Op<"read"> {
  let summary = "Read one element of a GM buffer";
  let description = [{
    Reads the element of `src` at `indices` through this block's cache; the
    result has `src`'s element type. A GM read; a loop bound or branch condition computed from it "reads memory",
    which makes the loop or branch not pure for `ccl-insert-comm-fence`.

    ```mlir
    %v = ccl.read %src[%i] : memref<8xi32> -> i32
    ```
  }];
  let arguments = (ins Ccl_Buffer:$src, Variadic<Index>:$indices);
  let results = (outs AnyType:$scalar);
  let assemblyFormat = "$src `[` $indices `]` attr-dict `:` type($src) `->` type($scalar)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Signals
//===----------------------------------------------------------------------===//

def Ccl_NotifyOp : Ccl_Op<"notify"> {
  let summary = "Signal a peer";
  let description = [{
    Sets (`set`) or atomically adds to (`atomic_add`) element 0 of rank
    `peer`'s copy of `signal`, directly in memory (signals are never
    cached). A wait that observes it is ordered after everything that
    happened before the notify, so every publish before a notify must be
    made visible first (invalidate and fence). A one-element
    `memref.subview` selects a cell of a signal array.

    ```mlir
    ccl.notify atomic_add %signal, %peer, %value : memref<8xi32, #ccl.window>, i32, i32
    ```
  }];
  let arguments = (ins Ccl_NotifyKindAttr:$op, Ccl_Signal:$signal, Ccl_Integer:$peer, Ccl_Integer:$value);
  let assemblyFormat = [{
    `` $op $signal `,` $peer `,` $value attr-dict `:` type($signal) `,` type($peer) `,` type($value)
  }];
}

def Ccl_WaitOp : Ccl_Op<"wait"> {
  let summary = "Wait for a signal";
  let description = [{
    Blocks until element 0 of this rank's `signal` compares to `expected`
    (`ge`: at least, `eq`: equal). GM reads after it need a whole-GM
    `ccl.cacheinvalid` in between, or they may return lines cached before
    the data arrived.

    ```mlir
    ccl.wait ge %signal, %expected : memref<8xi32, #ccl.window>, i32
    ```
  }];
  let arguments = (ins Ccl_WaitCmpAttr:$cmp, Ccl_Signal:$signal, Ccl_Integer:$expected);
  let assemblyFormat = "`` $cmp $signal `,` $expected attr-dict `:` type($signal) `,` type($expected)";
}

//===----------------------------------------------------------------------===//
// Markers
//===----------------------------------------------------------------------===//

def Ccl_FenceOp : Ccl_Op<"fence"> {
  let summary = "GM release fence";
  let description = [{
    Waits until every in-flight write of this block (remote writes, and the
    write-backs of `ccl.cacheinvalid`) has landed in memory.

    ```mlir
    ccl.fence
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Ccl_CacheInvalidOp : Ccl_Op<"cacheinvalid"> {
  let summary = "Write back and drop cache lines";
  let description = [{
    With a `target`, writes back the dirty lines of that buffer (as in-flight
    writes) and drops its clean lines; without one, does so for every line
    of this block's cache (the whole-GM form). After a local publish the
    region form names the written buffer, then a `ccl.fence` follows.

    ```mlir
    ccl.cacheinvalid
    ccl.cacheinvalid %target : memref<64xf32, #ccl.window>
    ```
  }];
  let arguments = (ins Optional<Ccl_Buffer>:$target);
  // Prints as `($target^ `:` type($target))? attr-dict` would, but the whole-GM
  // form may be followed by an op with results (`ccl.cacheinvalid` then
  // `%v = ccl.read ...`): a `%name` that starts the next op's result list is
  // not taken for the target (dialect-glue/cpp/CclDialect.cpp).
  let assemblyFormat = "`` custom<CacheInvalidTarget>($target, type($target)) attr-dict";
}

//===----------------------------------------------------------------------===//
// Opaque work
//===----------------------------------------------------------------------===//

def Ccl_SubmitOp : Ccl_Op<"submit", [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Submit opaque work";
  let description = [{
    Runs `callee`, a function of the nearest symbol table, on the device as
    a black box: it may write any buffer, so inside a kernel it is an opaque
    publish (whole-GM invalidate and fence after it), and in orchestration
    code it is a publish that later kernel launches must invalidate against.
    Arguments and results may be of any mix of types.

    ```mlir
    %r = ccl.submit @callee(%a, %i) : (memref<8xf32>, index) -> i32
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyType>:$args);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = "$callee `(` $args `)` attr-dict `:` functional-type($args, $results)";
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

def Ccl_AllToAllVOp : Ccl_Op<"all_to_all_v"> {
  let summary = "Exchange variable-size slices between all ranks";
  let description = [{
    Every rank sends `send_counts[q]` rows of its `send` slice for peer `q`
    into `q`'s `recv`, at the rows reserved for this rank, and learns in
    `recv_counts` how many rows each peer sent. `blocks` is the requested
    launch width B = CalAllToAllVBlocks(P, L); `ccl-admit-launch-width`
    stamps `launch_width` when B is a constant. An optional `signal`
    (`memref<P x S x i32, #ccl.window>`: row = source rank, column = the
    sender's block id, S >= B) is what `ccl-lower-all-to-all-v` synchronises
    on when it turns the collective into a kernel.

    Unlowered, it runs at once on all ranks, writing memory behind every
    cache: a kernel launched after it must invalidate first.

    ```mlir
    ccl.all_to_all_v %send, %send_counts, %recv, %recv_counts, blocks %b {launch_width = 16 : i64}
        : memref<64xf32, #ccl.window>, memref<8xi32, #ccl.window>, memref<64xf32, #ccl.window>, memref<8xi32>, i32
    ccl.all_to_all_v %send, %send_counts, %recv, %recv_counts, blocks %b, signal %sig
        : memref<64xf32, #ccl.window>, memref<8xi32, #ccl.window>, memref<64xf32, #ccl.window>, memref<8xi32>, i32,
          memref<8x16xi32, #ccl.window>
    ```
  }];
  let arguments = (ins Ccl_Buffer:$send, Ccl_Buffer:$send_counts, Ccl_Buffer:$recv, Ccl_Buffer:$recv_counts,
                       Ccl_Integer:$blocks, Optional<Ccl_Buffer>:$signal,
                       OptionalAttr<I64Attr>:$launch_width, OptionalAttr<I64Attr>:$signal_stride);
  let assemblyFormat = [{
    $send `,` $send_counts `,` $recv `,` $recv_counts `,` `blocks` $blocks (`,` `signal` $signal^)? attr-dict
    `:` type($send) `,` type($send_counts) `,` type($recv) `,` type($recv_counts) `,` type($blocks)
    (`,` type($signal)^)?
  }];
}

def Ccl_AllReduceOp : Ccl_Op<"all_reduce"> {
  let summary = "Reduce a buffer over all ranks";
  let description = [{
    Every rank's `dst` receives the `sum`, `max` or `min` of all ranks'
    `src`, written behind every cache.

    ```mlir
    ccl.all_reduce sum %src, %dst : memref<64xf32, #ccl.window>, memref<64xf32, #ccl.window>
    ```
  }];
  let arguments = (ins Ccl_ReduceKindAttr:$reduce, Ccl_Buffer:$src, Ccl_Buffer:$dst);
  let assemblyFormat = "`` $reduce $src `,` $dst attr-dict `:` type($src) `,` type($dst)";
}

def Ccl_BarrierOp : Ccl_Op<"barrier"> {
  let summary = "Synchronise all ranks";
  let description = [{
    No rank passes until every rank has reached it. A collective: kernels
    launched after it need their prologue.

    ```mlir
    ccl.barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Pure queries
//===----------------------------------------------------------------------===//

def Ccl_CalAllToAllVBlocksOp : Ccl_Op<"cal_all_to_all_v_blocks", [Pure, AllTypesMatch<["l", "b"]>]> {
  let summary = "The admitted all_to_all_v launch width";
  let description = [{
    `b = CalAllToAllVBlocks(p, l)`: `l` when `l < p`, else `(l / p) * p`, the
    largest multiple of the rank count `p` not above the requested core
    count `l`. Computed once at the orchestration entry, never in a kernel;
    `ccl-admit-launch-width` folds it when both operands are constants.

    ```mlir
    %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i64
    ```
  }];
  let arguments = (ins Ccl_Integer:$p, Ccl_Integer:$l);
  let results = (outs Ccl_Integer:$b);
  let assemblyFormat = "$p `,` $l attr-dict `:` type($p) `,` type($l)";
}

def Ccl_CommSizeOp : Ccl_Op<"comm_size", [Pure]> {
  let summary = "The rank count P";
  let description = [{
    The number of ranks, when it is not known at compile time.

    ```mlir
    %p = ccl.comm_size : i32
    ```
  }];
  let results = (outs Ccl_Integer:$size);
  let assemblyFormat = "attr-dict `:` type($size)";
}

def Ccl_RankOp : Ccl_Op<"rank", [Pure]> {
  let summary = "This rank's id";
  let description = [{
    The id (0 <= id < P) of the rank running this code.

    ```mlir
    %r = ccl.rank : i32
    ```
  }];
  let results = (outs Ccl_Integer:$rank);
  let assemblyFormat = "attr-dict `:` type($rank)";
}

def Ccl_BlockIdOp : Ccl_Op<"block_id", [Pure]> {
  let summary = "The id of the block running this kernel";
  let description = [{
    The index (0 <= id < launch width) of the block running this kernel. A
    kernel launched with width B runs as B blocks; only InCore functions ask.

    ```mlir
    %k = ccl.block_id : index
    ```
  }];
  let results = (outs Ccl_Integer:$id);
  let assemblyFormat = "attr-dict `:` type($id)";
}
