// Phase B on regions of several blocks follows the branches, not the block
// order: a block's incoming flag is the OR of its predecessors' outgoing
// flags, to a fixpoint. The entry block has no predecessors, so a launch in
// it before any publish is not marked; a cf.br back edge carries a publish
// into the next iteration; a diamond ORs its arms; a block no path reaches
// is scanned with the flag clear.
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | FileCheck %s
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence,ccl-verify-comm-order)' -o /dev/null
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | ccl-opt -p 'builtin.module(ccl-insert-comm-fence)' > %t.twice
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | diff - %t.twice

// CHECK-LABEL: func.func @k_entry(
// CHECK-NEXT: ccl.read
func.func @k_entry(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "aiv"} {
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}
// The back edge of ^loop brings the barrier before the next launch.
// CHECK-LABEL: func.func @k_loop(
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.read
func.func @k_loop(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "aiv"} {
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}
// CHECK-LABEL: func.func @k_exit(
// CHECK-NEXT: ccl.cacheinvalid{{$}}
func.func @k_exit(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "aiv"} {
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}

// CHECK-LABEL: func.func @loop(
// CHECK-NEXT: call @k_entry
// CHECK-NEXT: cf.br
func.func @loop(%w: memref<64xf32, #ccl.window>, %i: index, %c: i1) attributes {ccl.kind = "orchestration"} {
  call @k_entry(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  cf.br ^loop
^loop:
  call @k_loop(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  ccl.barrier
  cf.cond_br %c, ^loop, ^exit
^exit:
  call @k_exit(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  return
}

// A diamond: one arm publishes, the join launches.
// CHECK-LABEL: func.func @k_join(
// CHECK-NEXT: ccl.cacheinvalid{{$}}
func.func @k_join(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "aic"} {
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}
// Launched on the arm that does not publish, before the join: unmarked.
// CHECK-LABEL: func.func @k_quiet_arm(
// CHECK-NEXT: ccl.read
func.func @k_quiet_arm(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "aic"} {
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}
func.func @diamond(%w: memref<64xf32, #ccl.window>, %i: index, %c: i1) attributes {ccl.kind = "graph"} {
  cf.cond_br %c, ^publish, ^quiet
^publish:
  ccl.all_reduce sum %w, %w : memref<64xf32, #ccl.window>, memref<64xf32, #ccl.window>
  cf.br ^join
^quiet:
  call @k_quiet_arm(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  cf.br ^join
^join:
  call @k_join(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  return
}

// A block no path reaches is scanned with the flag clear, though the entry
// published.
// CHECK-LABEL: func.func @k_dead(
// CHECK-NEXT: ccl.read
func.func @k_dead(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "incore"} {
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}
func.func @unreachable(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "orchestration"} {
  ccl.barrier
  return
^dead:
  call @k_dead(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  return
}

// The same inside an scf.execute_region of several blocks.
// CHECK-LABEL: func.func @k_region(
// CHECK-NEXT: ccl.cacheinvalid{{$}}
func.func @k_region(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "incore"} {
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}
func.func @region(%w: memref<64xf32, #ccl.window>, %i: index, %c: i1) attributes {ccl.kind = "orchestration"} {
  scf.execute_region {
    cf.cond_br %c, ^a, ^b
  ^a:
    ccl.barrier
    scf.yield
  ^b:
    scf.yield
  }
  call @k_region(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  return
}
