// The rules' own race (issue 36; SEMANTICS.md, the checker's Soundness
// paragraph): a collective reached through a function without ccl.kind.
// The rules' Phase B does not count the call of @reduce as a publish, so
// the second launch of @peek gets no prologue and reads the clean line the
// first launch left on its block slot, older than the all_reduce's write.
// The checker rejects the rules' output at the second launch (notes at the
// read and at the publish); the minimal placement adds the prologue, and
// its output is race-free and accepted.
// REQUIRES: ccl-sim
// RUN: ccl-opt %s --mlir-print-debuginfo -p 'builtin.module(ccl-insert-comm-fence)' -o %t.rules
// RUN: not ccl-opt %t.rules -p 'builtin.module(ccl-verify-comm-order)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECKER
// RUN: %expect-exit 3 ccl-sim %t.rules --ranks 2 --reference 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: ccl-opt %s -p 'builtin.module(ccl-pipeline{placement=minimal})' -o %t.minimal
// RUN: FileCheck %s --check-prefix=MINIMAL < %t.minimal
// RUN: %expect-exit 0 ccl-sim %t.minimal --ranks 2 --reference | FileCheck %s --check-prefix=CLEAN

// RACE: error: data race: stale read of element 0
// CLEAN: ccl-sim: no race
// MINIMAL-LABEL: func.func @peek
// MINIMAL-NEXT: ccl.cacheinvalid{{$}}
// MINIMAL-NEXT: arith.constant
// MINIMAL-NEXT: ccl.read

func.func @peek(%w: memref<1xi32, #ccl.window>) attributes {ccl.kind = "aiv"} {
  %i0 = arith.constant 0 : index
  // CHECKER-DAG: rules-collective-behind-plain-function.mlir:[[@LINE+1]]:8: note: the first GM read of @peek it reaches
  %v = ccl.read %w[%i0] : memref<1xi32, #ccl.window> -> i32
  return
}

func.func @reduce(%src: memref<1xi32>, %w: memref<1xi32, #ccl.window>) {
  ccl.all_reduce sum %src, %w : memref<1xi32>, memref<1xi32, #ccl.window>
  return
}

func.func @main(%w: memref<1xi32, #ccl.window>, %src: memref<1xi32>) attributes {ccl.kind = "orchestration"} {
  func.call @peek(%w) : (memref<1xi32, #ccl.window>) -> ()
  // CHECKER-DAG: rules-collective-behind-plain-function.mlir:[[@LINE+1]]:3: note: the publish it runs after
  func.call @reduce(%src, %w) : (memref<1xi32>, memref<1xi32, #ccl.window>) -> ()
  // CHECKER-DAG: rules-collective-behind-plain-function.mlir:[[@LINE+1]]:3: error: InCore function @peek is launched after a publish the rules' Phase B does not count
  func.call @peek(%w) : (memref<1xi32, #ccl.window>) -> ()
  return
}
