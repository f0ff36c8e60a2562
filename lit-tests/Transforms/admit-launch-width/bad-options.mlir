// Malformed options are rejected before anything runs, naming the option:
// max-blocks takes an integer >= 0 (0 = no limit; the range is the pass's
// check), lower-dynamic a bool (types and names are MLIR's own checks).
// RUN: not ccl-opt %s --pass-pipeline='builtin.module(ccl-admit-launch-width{max-blocks=-3})' 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not ccl-opt %s --ccl-admit-launch-width='max-blocks=-3' 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not ccl-opt %s --pass-pipeline='builtin.module(ccl-admit-launch-width{max-blocks=many})' 2>&1 | FileCheck %s --check-prefix=WORD
// RUN: not ccl-opt %s --pass-pipeline='builtin.module(ccl-admit-launch-width{lower-dynamic=maybe})' 2>&1 | FileCheck %s --check-prefix=MAYBE
// RUN: not ccl-opt %s --ccl-admit-launch-width='lower-dynamic=maybe' 2>&1 | FileCheck %s --check-prefix=MAYBE
// RUN: not ccl-opt %s --pass-pipeline='builtin.module(ccl-admit-launch-width{max-block=3})' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: ccl-opt %s --pass-pipeline='builtin.module(ccl-admit-launch-width{max-blocks=0 lower-dynamic=1})' | FileCheck %s --check-prefix=OK

// NEG: <unknown>:0: error: invalid value -3 for option 'max-blocks' of 'ccl-admit-launch-width': expected an integer >= 0
// WORD: ccl-opt: for the --max-blocks option: 'many' value invalid for long argument!
// MAYBE: ccl-opt: for the --lower-dynamic option: 'maybe' is invalid value for boolean argument! Try 0 or 1
// UNKNOWN: <unknown>:0: error: <Pass-Options-Parser>: no such option max-block
// NEG-NOT: func.func
// MAYBE-NOT: func.func

// OK-LABEL: func.func @f(
// OK-NEXT:    arith.cmpi slt
func.func @f(%p: i32, %l: i32) -> i32 {
  %b = ccl.cal_all_to_all_v_blocks %p, %l : i32, i32
  return %b : i32
}
