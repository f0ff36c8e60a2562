// Empty strings are values like any other: a kernel named @"" gets its
// markers and its prologue; a call to a function whose
// ccl.builtin_template_dir is "" is a publish; an empty ccl.level or
// ccl.role makes nothing a scan target (ccl.kind = "", an unknown kind, is
// in unknown-kind.mlir). MLIR prints the empty symbol as
// @<<INVALID EMPTY SYMBOL>>.
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | FileCheck %s
// Beyond the rules, the checker reads the functions with an empty level or
// role as the execution model runs them (a barrier, then the launch) and
// asks for @unscanned's prologue; placement=minimal adds it. (The entry calls a declaration,
// @template: no run to prove the synchronisation of, so the markers alone, sync=false.)
// RUN: not ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence,ccl-verify-comm-order{sync=false})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BEYOND
// RUN: ccl-opt %s -p 'builtin.module(ccl-pipeline{placement=minimal sync=false})' -o /dev/null
// BEYOND-COUNT-2: error: InCore function @unscanned is launched after a publish the rules' Phase B does not count
// BEYOND-NOT: error:

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

// Launched only from functions that are not scan targets: no prologue.
// CHECK-LABEL: func.func @unscanned(
// CHECK-NEXT: ccl.read
func.func @unscanned(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "aiv"} {
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}

// Launched after a call to a builtin template whose directory is "".
// CHECK-LABEL: func.func @after_template(
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence
// CHECK-NEXT: ccl.read
func.func @after_template(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.kind = "aic"} {
  %x = ccl.read %w[%i] : memref<64xf32, #ccl.window> -> f32
  return
}

func.func private @template() attributes {ccl.builtin_template_dir = ""}

func.func @empty_level(%w: memref<64xf32, #ccl.window>, %i: index)
    attributes {ccl.level = "", ccl.role = "orchestrator"} {
  ccl.barrier
  call @unscanned(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  return
}

func.func @empty_role(%w: memref<64xf32, #ccl.window>, %i: index) attributes {ccl.level = "host", ccl.role = ""} {
  ccl.barrier
  call @unscanned(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  return
}

func.func @orch(%t: vector<16xf32>, %w: memref<64xf32, #ccl.window>, %s: memref<8xi32, #ccl.window>, %i: index,
                %peer: i32) attributes {ccl.kind = "orchestration"} {
  ccl.submit @""() : () -> ()
  call @""(%t, %w, %s, %i, %peer) : (vector<16xf32>, memref<64xf32, #ccl.window>, memref<8xi32, #ccl.window>, index, i32) -> ()
  call @template() : () -> ()
  call @after_template(%w, %i) : (memref<64xf32, #ccl.window>, index) -> ()
  return
}

