// Whatever ccl-insert-comm-fence produces passes the checker: every program
// of this directory that the checker rejects is accepted once the insert
// pass has run. The checker itself changes nothing.
// RUN: ccl-opt %S/local-publish.mlir --split-input-file -p 'builtin.module(ccl-insert-comm-fence,ccl-verify-comm-order)' -o /dev/null
// RUN: ccl-opt %S/remote-opaque.mlir --split-input-file -p 'builtin.module(ccl-insert-comm-fence,ccl-verify-comm-order)' -o /dev/null
// RUN: ccl-opt %S/branches.mlir --split-input-file -p 'builtin.module(ccl-insert-comm-fence,ccl-verify-comm-order)' -o /dev/null
// Beyond the rules: @parallel_and_forall remote-stores into the peer's %w and
// then remote-loads it with no invalidate between them (the rules place one
// only after a wait): a line of it the block's cache may hold hides the write.
// RUN: not ccl-opt %S/loops.mlir --split-input-file -p 'builtin.module(ccl-insert-comm-fence,ccl-verify-comm-order)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOOPS
// LOOPS-NOT: {{error: [^e]}}
// LOOPS: loops.mlir:84:5: error: this block reads back what this ccl.remote_store writes
// LOOPS-NEXT: ccl.remote_store
// LOOPS-NOT: {{error: [^e]}}
// LOOPS: loops.mlir:90:10: note: the ccl.remote_load that may read it back
// LOOPS-NOT: {{error: [^e]}}
// RUN: ccl-opt %S/loops.mlir --split-input-file -p 'builtin.module(ccl-pipeline{placement=minimal sync=false})' -o /dev/null
// RUN: ccl-opt %S/waits.mlir --split-input-file -p 'builtin.module(ccl-insert-comm-fence,ccl-verify-comm-order)' -o /dev/null
// Beyond the rules: a kernel launched in an scf.parallel after the
// collective of an earlier iteration, which the rules' Phase B does not
// rescan (the execution model runs the iterations in order), needs the
// prologue the rules leave out; the minimal placement adds it.
// RUN: not ccl-opt %S/orchestration.mlir --split-input-file -p 'builtin.module(ccl-insert-comm-fence,ccl-verify-comm-order{sync=false})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=PARALLEL
// RUN: ccl-opt %S/orchestration.mlir --split-input-file -p 'builtin.module(ccl-pipeline{placement=minimal sync=false})' -o /dev/null
// PARALLEL-NOT: {{error: [^e]}}
// PARALLEL: error: InCore function @stage is launched after a publish the rules' Phase B does not count
// PARALLEL-NOT: {{error: [^e]}}
// RUN: not ccl-opt %S/unstructured.mlir --split-input-file -p 'builtin.module(ccl-insert-comm-fence,ccl-verify-comm-order)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNSTRUCTURED
// The file's expected-* lines are reported unmet ("error: expected ...") (mlir-opt does that with
// --split-input-file); no violation is.
// UNSTRUCTURED-NOT: {{: error: ((local|remote|opaque) publish|ccl.wait) reaches}}
// UNSTRUCTURED: error: unknown ccl.kind "kernel"
// The file's expected-* lines are reported unmet (mlir-opt does that with
// --split-input-file); no violation is.
// UNSTRUCTURED-NOT: {{: error: ((local|remote|opaque) publish|ccl.wait) reaches}}
// The host below runs with integer arguments 0 (ccl-sim's defaults), a loop of step 0: no run whose
// synchronisation could be proven, so these check the markers alone (sync=false).
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence,ccl-verify-comm-order{sync=false})' | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' > %t.inserted
// RUN: ccl-opt %t.inserted -p 'builtin.module(ccl-verify-comm-order{sync=false})' > %t.checked
// RUN: diff %t.inserted %t.checked

// A kernel with every kind of source, in loops and branches, that the insert
// pass protects: pure wait loops get one invalidate after them, runs of
// waits share one.
// CHECK-LABEL: func.func @kernel
// CHECK: ccl.tile_store
// CHECK-NEXT: ccl.cacheinvalid %{{.*}} : memref<64xf32, #ccl.window>
// CHECK-NEXT: ccl.fence
func.func @kernel(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>,
                  %lb: index, %ub: index, %st: index, %c: i1, %peer: i32, %one: i32) attributes {ccl.kind = "incore"} {
  ccl.cacheinvalid
  scf.for %k = %lb to %ub step %st {
    ccl.notify set %s, %peer, %one : memref<8xi32, #ccl.window>, i32, i32
    %x = ccl.tile_load %w[%k] : memref<64xf32, #ccl.window> -> vector<16xf32>
    scf.if %c {
      ccl.tile_store %x, %w[%k] : vector<16xf32>, memref<64xf32, #ccl.window>
    } else {
      ccl.remote_store %x, %w, %peer : vector<16xf32>, memref<64xf32, #ccl.window>, i32
    }
    scf.for %j = %lb to %ub step %st {
      ccl.wait ge %s, %one : memref<8xi32, #ccl.window>, i32
    }
    ccl.wait ge %s, %one : memref<8xi32, #ccl.window>, i32
    ccl.wait ge %s, %one : memref<8xi32, #ccl.window>, i32
    %y = ccl.read %w[%k] : memref<64xf32, #ccl.window> -> f32
  }
  scf.while : () -> () {
    ccl.wait eq %s, %one : memref<8xi32, #ccl.window>, i32
    scf.condition(%c)
  } do {
    scf.yield
  }
  %z = ccl.remote_load %w, %peer : memref<64xf32, #ccl.window>, i32 -> vector<16xf32>
  return
}

func.func @host(%t: vector<16xf32>, %a: memref<64xf32>, %b: memref<64xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>,
                %lb: index, %ub: index, %st: index, %c: i1, %peer: i32, %one: i32) attributes {ccl.kind = "orchestration"} {
  scf.for %k = %lb to %ub step %st {
    func.call @kernel(%t, %w, %s, %lb, %ub, %st, %c, %peer, %one) : (vector<16xf32>, memref<64xf32, #ccl.window>, memref<8xi32, #ccl.window>, index, index, index, i1, i32, i32) -> ()
    ccl.all_reduce max %a, %b : memref<64xf32>, memref<64xf32>
  }
  return
}
