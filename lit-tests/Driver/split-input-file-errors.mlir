// A failing chunk does not stop the others; diagnostics keep the line
// numbers of the whole file, as in upstream mlir-opt; the run fails.
// RUN: not ccl-opt --split-input-file %s > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: not mlir-opt --split-input-file %s > %t.upstream.out 2> %t.upstream.err
// RUN: diff %t.out %t.upstream.out
// RUN: diff %t.err %t.upstream.err

// OUT-LABEL: func.func @ok
// OUT: // {{-----}}
// OUT-LABEL: func.func @also_ok
// ERR: split-input-file-errors.mlir:23:19: error: use of undeclared SSA value name
// ERR-NEXT: {{^}}  %0 = arith.addi %x, %x : i32
// ERR-NEXT: {{^}}                  ^
func.func @ok() {
  return
}

// -----

func.func @bad() {
  %0 = arith.addi %x, %x : i32
  return
}

// -----

func.func @also_ok() {
  return
}
