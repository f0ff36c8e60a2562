// Malformed options are rejected before anything runs, naming the option:
// max-blocks takes an integer >= 0 (0 = no limit), lower-dynamic a bool.
// RUN: not ccl-opt %s --pass-pipeline='builtin.module(ccl-admit-launch-width{max-blocks=-3})' 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not ccl-opt %s --ccl-admit-launch-width='max-blocks=-3' 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not ccl-opt %s --pass-pipeline='builtin.module(ccl-admit-launch-width{max-blocks=many})' 2>&1 | FileCheck %s --check-prefix=WORD
// RUN: not ccl-opt %s --pass-pipeline='builtin.module(ccl-admit-launch-width{lower-dynamic=maybe})' 2>&1 | FileCheck %s --check-prefix=MAYBE
// RUN: not ccl-opt %s --ccl-admit-launch-width='lower-dynamic=maybe' 2>&1 | FileCheck %s --check-prefix=MAYBE
// RUN: not ccl-opt %s --pass-pipeline='builtin.module(ccl-admit-launch-width{max-block=3})' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not ccl-opt %s --pass-pipeline='builtin.module(func.func(ccl-admit-launch-width))' 2>&1 | FileCheck %s --check-prefix=ANCHOR
// RUN: ccl-opt %s --pass-pipeline='builtin.module(ccl-admit-launch-width{max-blocks=0 lower-dynamic=1})' | FileCheck %s --check-prefix=OK

// NEG: error: invalid value '-3' for option 'max-blocks' of pass 'ccl-admit-launch-width': expected an integer >= 0
// WORD: error: invalid value 'many' for option 'max-blocks' of pass 'ccl-admit-launch-width': expected an integer >= 0
// MAYBE: error: invalid value 'maybe' for option 'lower-dynamic' of pass 'ccl-admit-launch-width': expected true, false, 1, 0
// UNKNOWN: error: 'ccl-admit-launch-width' does not have an option named 'max-block' (options: max-blocks, lower-dynamic)
// ANCHOR: error: 'ccl-admit-launch-width' runs on 'builtin.module', but is nested under 'func.func'
// NEG-NOT: func.func
// MAYBE-NOT: func.func

// OK-LABEL: func.func @f(
// OK-NEXT:    arith.cmpi slt
func.func @f(%p: i32, %l: i32) -> i32 {
  %b = "ccl.cal_all_to_all_v_blocks"(%p, %l) : (i32, i32) -> i32
  return %b : i32
}
