// Input MLIR cannot parse: MLIR's own located diagnostic, with the source
// line and caret, and exit 1; nothing is simulated. The same from stdin
// names <stdin>. A program that parses but fails the verifier is refused
// the same way.
// REQUIRES: ccl-sim
// RUN: %expect-exit 1 ccl-sim %s --ranks 2 2>&1 | FileCheck %s --check-prefix=FILE
// RUN: %expect-exit 1 ccl-sim - --ranks 2 < %s 2>&1 | FileCheck %s --check-prefix=STDIN
// RUN: %expect-exit 1 ccl-sim %S/Inputs/invalid-op.mlir --ranks 2 2>&1 | FileCheck %s --check-prefix=VERIFIER

// FILE:      parse-error.mlir:[[@LINE+8]]:12: error: expected ':'
// FILE-NEXT: {{^}}  return %x{{$}}
// FILE-NEXT: {{^}}           ^{{$}}
// FILE-NOT:  {{.}}
// STDIN:     <stdin>:[[@LINE+4]]:12: error: expected ':'
// STDIN-NOT: ccl-sim: no race
func.func @main() attributes {ccl.kind = "orchestration"} {
  %x = arith.constant 1 : i32
  return %x
}

// VERIFIER:     invalid-op.mlir:5:3: error: 'ccl.put' op operand #2 must be signless integer wider than i1, or index, but got 'i1'
// VERIFIER-NOT: ccl-sim: no race
