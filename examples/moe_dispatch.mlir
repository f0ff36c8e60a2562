// A mixture-of-experts dispatch/combine step on an 8-rank NPU, as a
// compiler front end would hand it to cclir before memory-consistency
// markers are placed.
//
//   ccl-opt examples/moe_dispatch.mlir -p 'builtin.module(ccl-pipeline)'
//
// The orchestration loop runs one MoE layer per iteration: pack tokens into
// the peer-visible send window, exchange them with all_to_all_v, run the
// local experts on what arrived, and send the results back to their owners.
// Nothing below carries a cache invalidate or a fence: the passes add them.

// Pack: gather this rank's tokens for each expert into the send window and
// tell every peer its slice is ready.
func.func @dispatch_pack(%tokens: memref<1024x64xf32>, %send: memref<1024x64xf32, #ccl.window>,
                         %ready: memref<8xi32, #ccl.window>, %rows: index)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c0_i32 = arith.constant 0 : i32
  %c1_i32 = arith.constant 1 : i32
  %c8_i32 = arith.constant 8 : i32
  scf.for %row = %c0 to %rows step %c1 {
    %tile = ccl.tile_load %tokens[%row, %c0] : memref<1024x64xf32> -> vector<64xf32>
    ccl.tile_store %tile, %send[%row, %c0] : vector<64xf32>, memref<1024x64xf32, #ccl.window>
  }
  scf.for %peer = %c0_i32 to %c8_i32 step %c1_i32 : i32 {
    ccl.notify set %ready, %peer, %c1_i32 : memref<8xi32, #ccl.window>, i32, i32
  }
  return
}

// Experts: wait until the peers' tokens are ready, then run the expert FFN
// tile by tile and publish the outputs into the combine window.
func.func @expert_ffn(%recv: memref<1024x64xf32, #ccl.window>, %recv_counts: memref<8xi32>,
                      %out: memref<1024x64xf32, #ccl.window>, %landed: memref<8xi32, #ccl.window>,
                      %rows: index) attributes {ccl.kind = "aic"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c1_i32 = arith.constant 1 : i32
  scf.for %peer = %c0 to %c8 step %c1 {
    ccl.wait ge %landed, %c1_i32 : memref<8xi32, #ccl.window>, i32
  }
  %count = ccl.read %recv_counts[%c0] : memref<8xi32> -> i32
  %limit = arith.index_cast %count : i32 to index
  scf.for %row = %c0 to %limit step %c1 {
    %x = ccl.tile_load %recv[%row, %c0] : memref<1024x64xf32, #ccl.window> -> vector<64xf32>
    %y = arith.mulf %x, %x : vector<64xf32>
    ccl.tile_store %y, %out[%row, %c0] : vector<64xf32>, memref<1024x64xf32, #ccl.window>
  }
  return
}

// Combine: push each expert output row back to its own row of the owner's
// %home (%owner owns the tokens), then signal it. Each row goes through a
// subview of its row: the rows of two iterations are different elements,
// so their remote stores may be in flight together and one fence after the
// loop lands them all (a store of every row into the whole of %home would
// need a fence per row: two writes of one element in flight may land in
// either order).
func.func @combine_send(%out: memref<1024x64xf32, #ccl.window>, %home: memref<1024x64xf32, #ccl.window>,
                        %done: memref<8xi32, #ccl.window>, %owner: i32, %rows: index)
    attributes {ccl.kind = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1_i32 = arith.constant 1 : i32
  scf.for %row = %c0 to %rows step %c1 {
    %y = ccl.tile_load %out[%row, %c0] : memref<1024x64xf32, #ccl.window> -> vector<64xf32>
    %back = memref.subview %home[%row, 0] [1, 64] [1, 1]
        : memref<1024x64xf32, #ccl.window> to memref<1x64xf32, strided<[64, 1], offset: ?>, #ccl.window>
    ccl.remote_store %y, %back, %owner : vector<64xf32>, memref<1x64xf32, strided<[64, 1], offset: ?>, #ccl.window>, i32
  }
  ccl.notify atomic_add %done, %owner, %c1_i32 : memref<8xi32, #ccl.window>, i32, i32
  return
}

// A host-side helper that launches both expert-side kernels: the pass
// resolves it to every kernel it reaches.
func.func @run_experts(%recv: memref<1024x64xf32, #ccl.window>, %recv_counts: memref<8xi32>,
                       %out: memref<1024x64xf32, #ccl.window>, %home: memref<1024x64xf32, #ccl.window>,
                       %landed: memref<8xi32, #ccl.window>, %done: memref<8xi32, #ccl.window>,
                       %owner: i32, %rows: index) attributes {ccl.kind = "orchestration"} {
  func.call @expert_ffn(%recv, %recv_counts, %out, %landed, %rows)
      : (memref<1024x64xf32, #ccl.window>, memref<8xi32>, memref<1024x64xf32, #ccl.window>, memref<8xi32, #ccl.window>, index) -> ()
  func.call @combine_send(%out, %home, %done, %owner, %rows)
      : (memref<1024x64xf32, #ccl.window>, memref<1024x64xf32, #ccl.window>, memref<8xi32, #ccl.window>, i32, index) -> ()
  return
}

// The orchestration entry: one iteration per MoE layer. The launch width of
// the exchange is computed once here from the rank count and the requested
// core count (8 ranks, 20 cores -> 16 blocks). The tokens of each rank are
// owned by the rank %owner places after it (ccl-sim runs it with
// --arg rows=1024 --arg layers=1 --arg owner=1, say).
func.func @moe_layers(%tokens: memref<1024x64xf32>, %send: memref<1024x64xf32, #ccl.window>,
                      %send_counts: memref<8xi32>, %recv: memref<1024x64xf32, #ccl.window>,
                      %recv_counts: memref<8xi32>, %out: memref<1024x64xf32, #ccl.window>,
                      %home: memref<1024x64xf32, #ccl.window>, %ready: memref<8xi32, #ccl.window>,
                      %done: memref<8xi32, #ccl.window>, %owner: i32, %rows: index, %layers: index)
    attributes {ccl.kind = "orchestration"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ranks = arith.constant 8 : i32
  %cores = arith.constant 20 : i32
  %blocks = ccl.cal_all_to_all_v_blocks %ranks, %cores : i32, i32
  %me = ccl.rank : i32
  %ahead = arith.addi %me, %owner : i32
  %owner_rank = arith.remsi %ahead, %ranks : i32
  scf.for %layer = %c0 to %layers step %c1 {
    func.call @dispatch_pack(%tokens, %send, %ready, %rows)
        : (memref<1024x64xf32>, memref<1024x64xf32, #ccl.window>, memref<8xi32, #ccl.window>, index) -> ()
    ccl.all_to_all_v %send, %send_counts, %recv, %recv_counts, blocks %blocks {signal_stride = 16 : i64}
        : memref<1024x64xf32, #ccl.window>, memref<8xi32>, memref<1024x64xf32, #ccl.window>, memref<8xi32>, i32
    func.call @run_experts(%recv, %recv_counts, %out, %home, %ready, %done, %owner_rank, %rows)
        : (memref<1024x64xf32, #ccl.window>, memref<8xi32>, memref<1024x64xf32, #ccl.window>, memref<1024x64xf32, #ccl.window>, memref<8xi32, #ccl.window>, memref<8xi32, #ccl.window>, i32, index) -> ()
  }
  ccl.barrier
  return
}
