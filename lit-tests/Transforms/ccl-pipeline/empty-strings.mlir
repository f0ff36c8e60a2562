// ccl-pipeline (with and without the lowering) on empty strings: @"" is an
// ordinary kernel (it gets its markers and prologue and the checker accepts
// the result); an empty level or role makes nothing a scan target of the
// rules (the checker's reading beyond them asks for the prologue: the
// second part); an empty kind fails the run with a located error and exit
// code 1, never an internal error.
// RUN: ccl-opt %s --split-input-file -p 'builtin.module(ccl-pipeline{sync=false})' --verify-diagnostics | FileCheck %s
// RUN: ccl-opt %s --split-input-file -p 'builtin.module(ccl-pipeline{lower-collectives=true sync=false})' --verify-diagnostics | FileCheck %s
// RUN: not ccl-opt %s --split-input-file -p 'builtin.module(ccl-pipeline{placement=minimal})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=MINIMAL
// MINIMAL-NOT: {{error: InCore}}
// RUN: not ccl-opt %s --split-input-file -p 'builtin.module(ccl-pipeline)' -o %t 2>&1 | FileCheck %s --check-prefix=EXIT
// EXIT-NOT: internal error
// EXIT: error: unknown ccl.kind ""
// EXIT-NOT: internal error
// EXIT: error: 'ccl.cal_all_to_all_v_blocks' in InCore function @"" (ccl.kind = "aiv")
// EXIT-NOT: internal error

// CHECK-LABEL: func.func @<<INVALID EMPTY SYMBOL>>(
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.read
// CHECK-NEXT: ccl.tile_store
// CHECK-NEXT: ccl.cacheinvalid %{{.*}} : memref<64xf32, #ccl.window>
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.notify
func.func @""(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>, %i: index,
              %peer: i32) attributes {ccl.kind = "incore"} {
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  ccl.tile_store %t, %w[%i] : vector<16xf32>, memref<64xf32, #ccl.window>
  ccl.notify set %s, %peer, %peer : memref<8xi32, #ccl.window>, i32, i32
  return
}

func.func @orch(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>, %i: index,
                %peer: i32) attributes {ccl.kind = "orchestration"} {
  ccl.submit @""() : () -> ()
  call @""(%t, %w, %s, %i, %peer) : (vector<16xf32>, memref<64xf32, #ccl.window>, memref<8xi32, #ccl.window>, index, i32) -> ()
  return
}

// -----

// An empty ccl.level or ccl.role makes nothing a scan target of the rules'
// Phase B: @unscanned gets no prologue. Beyond the rules, the checker
// reads these functions as the execution model runs them (a barrier, then
// the launch) and asks for it; placement=minimal adds it.
func.func @unscanned(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "aiv"} {
  // expected-note @below {{the first GM read of @unscanned it reaches}}
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}

func.func @empty_level(%w: memref<64xf32, #ccl.window>, %i: index)
    attributes {ccl.level = "", ccl.role = "orchestrator"} {
  // expected-note @below {{the publish it runs after}}
  ccl.barrier
  // expected-error @below {{InCore function @unscanned is launched after a publish the rules' Phase B does not count}}
  call @unscanned(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  return
}

func.func @empty_role(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.level = "host", ccl.role = ""} {
  // expected-note @below {{the publish it runs after}}
  ccl.barrier
  // expected-error @below {{InCore function @unscanned is launched after a publish the rules' Phase B does not count}}
  call @unscanned(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  return
}

// -----

// expected-error @+1 {{unknown ccl.kind ""}}
func.func @k() attributes {ccl.kind = ""} {
  return
}

// -----

func.func @""(%p: i32, %l: i32) attributes {ccl.kind = "aiv"} {
  // expected-error @+1 {{'ccl.cal_all_to_all_v_blocks' in InCore function @"" (ccl.kind = "aiv")}}
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  return
}
