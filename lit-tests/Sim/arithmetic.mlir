// Arithmetic follows MLIR's arith and index dialects: it wraps to the
// type's width, and what MLIR leaves undefined or poison is a runtime error
// of the program (exit 1), located at the op, never a crash.
// REQUIRES: ccl-sim
// RUN: %expect-exit 1 ccl-sim %s --ranks 1 --entry floordiv 2>&1 | FileCheck %s --check-prefix=FLOORDIV
// RUN: %expect-exit 1 ccl-sim %s --ranks 1 --entry ceildiv 2>&1 | FileCheck %s --check-prefix=CEILDIV
// RUN: %expect-exit 1 ccl-sim %s --ranks 1 --entry divsi_i32 2>&1 | FileCheck %s --check-prefix=DIVSI
// RUN: %expect-exit 1 ccl-sim %s --ranks 1 --entry index_floordivs 2>&1 | FileCheck %s --check-prefix=INDEX
// RUN: %expect-exit 1 ccl-sim %s --ranks 1 --entry shrsi 2>&1 | FileCheck %s --check-prefix=SHRSI
// RUN: %expect-exit 1 ccl-sim %s --ranks 1 --entry shli_negative 2>&1 | FileCheck %s --check-prefix=SHLI
// RUN: %expect-exit 1 ccl-sim %s --ranks 1 --entry nsw 2>&1 | FileCheck %s --check-prefix=NSW
// RUN: %expect-exit 1 ccl-sim %s --ranks 1 --entry fptosi 2>&1 | FileCheck %s --check-prefix=FPTOSI
// RUN: %expect-exit 1 ccl-sim %s --ranks 1 --entry divide_by_argument 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: %expect-exit 0 ccl-sim %s --ranks 1 --entry divide_by_argument --arg divisor=-1 | FileCheck %s --check-prefix=CLEAN
// RUN: %expect-exit 0 ccl-sim %s --ranks 1 --entry defined | FileCheck %s --check-prefix=CLEAN
// RUN: %expect-exit 1 ccl-sim %s --ranks 1 --entry wide 2>&1 | FileCheck %s --check-prefix=WIDE
// CLEAN: ccl-sim: no race: 1 states explored, every schedule of 1 ranks

// FLOORDIV: arithmetic.mlir:[[@LINE+4]]:8: error: signed division overflow: the minimum i64 divided by -1{{$}}
func.func @floordiv() attributes {ccl.kind = "orchestration"} {
  %min = arith.constant -9223372036854775808 : i64
  %m1 = arith.constant -1 : i64
  %q = arith.floordivsi %min, %m1 : i64
  return
}

// CEILDIV: arithmetic.mlir:[[@LINE+4]]:8: error: signed division overflow: the minimum i64 divided by -1{{$}}
func.func @ceildiv() attributes {ccl.kind = "orchestration"} {
  %min = arith.constant -9223372036854775808 : i64
  %m1 = arith.constant -1 : i64
  %q = arith.ceildivsi %min, %m1 : i64
  return
}

// Narrower than the 64 bits values are kept in: still an overflow.
// DIVSI: arithmetic.mlir:[[@LINE+4]]:8: error: signed division overflow: the minimum i32 divided by -1{{$}}
func.func @divsi_i32() attributes {ccl.kind = "orchestration"} {
  %min = arith.constant -2147483648 : i32
  %m1 = arith.constant -1 : i32
  %q = arith.divsi %min, %m1 : i32
  return
}

// INDEX: arithmetic.mlir:[[@LINE+4]]:8: error: signed division overflow: the minimum i64 divided by -1{{$}}
func.func @index_floordivs() attributes {ccl.kind = "orchestration"} {
  %min = index.constant -9223372036854775808
  %m1 = index.constant -1
  %q = index.floordivs %min, %m1
  return
}

// SHRSI: arithmetic.mlir:[[@LINE+4]]:8: error: a shift by 32, not below the bit width 32 (poison){{$}}
func.func @shrsi() attributes {ccl.kind = "orchestration"} {
  %a = arith.constant -5 : i32
  %by = arith.constant 32 : i32
  %q = arith.shrsi %a, %by : i32
  return
}

// The amount is unsigned: -1 is the largest there is.
// SHLI: arithmetic.mlir:[[@LINE+4]]:8: error: a shift by 255, not below the bit width 8 (poison){{$}}
func.func @shli_negative() attributes {ccl.kind = "orchestration"} {
  %a = arith.constant 1 : i8
  %by = arith.constant -1 : i8
  %q = arith.shli %a, %by : i8
  return
}

// NSW: arithmetic.mlir:[[@LINE+4]]:8: error: the signed result overflows i8, which its overflow flags exclude (poison){{$}}
func.func @nsw() attributes {ccl.kind = "orchestration"} {
  %a = arith.constant 100 : i8
  %b = arith.constant 28 : i8
  %q = arith.addi %a, %b overflow<nsw> : i8
  return
}

// FPTOSI: arithmetic.mlir:[[@LINE+3]]:8: error: 300 does not fit a signed i8 (poison){{$}}
func.func @fptosi() attributes {ccl.kind = "orchestration"} {
  %a = arith.constant 300.0 : f32
  %q = arith.fptosi %a : f32 to i8
  return
}

// An argument left at zero divides: the error names the division.
// ZERO: arithmetic.mlir:[[@LINE+3]]:8: error: division by zero{{$}}
func.func @divide_by_argument(%divisor: i32) attributes {ccl.kind = "orchestration"} {
  %a = arith.constant 7 : i32
  %q = arith.divsi %a, %divisor : i32
  return
}

// Wrapping without flags, the remainder of the minimum by -1, rounding
// divisions, shifts below the width: all defined.
func.func @defined() attributes {ccl.kind = "orchestration"} {
  %a = arith.constant 100 : i8
  %b = arith.constant 28 : i8
  %wrapped = arith.addi %a, %b : i8
  %min = arith.constant -9223372036854775808 : i64
  %m1 = arith.constant -1 : i64
  %zero = arith.remsi %min, %m1 : i64
  %seven = arith.constant -7 : i64
  %two = arith.constant 2 : i64
  %floor = arith.floordivsi %seven, %two : i64
  %ceil = arith.ceildivsi %seven, %two : i64
  %c63 = arith.constant 63 : i64
  %sign = arith.shrsi %min, %c63 : i64
  return
}

// Values are 64-bit patterns: a wider integer is not run.
// WIDE: arithmetic.mlir:[[@LINE+2]]:8: error: ccl-sim does not run 'arith.constant' on i128: it models integers of 1 to 64 bits
func.func @wide() attributes {ccl.kind = "orchestration"} {
  %a = arith.constant 1 : i128
  %b = arith.constant 2 : i128
  %c = arith.addi %a, %b : i128
  return
}
