// Under an address-space limit (`ulimit -v`, in KiB), ccl-sim's default
// --max-memory is at most half of it (docs/ccl-sim.md, "Limits"), so a
// program that allocates without end stops at a bound with "no
// conclusion" and exit 1, never an abort: 4 KiB buffers in a loop of 10^9
// iterations, never freed.
// REQUIRES: ccl-sim
// RUN: (ulimit -v 8000000 && %expect-exit 1 ccl-sim %s --ranks 2) 2>&1 | FileCheck %s
// RUN: (ulimit -v 8000000 && %expect-exit 1 ccl-sim %s --ranks 2 --random 3) 2>&1 | FileCheck %s
// A bound set above what the system gives: the allocation the system
// refuses ends the run the same way.
// RUN: (ulimit -v 3000000 && %expect-exit 1 ccl-sim %s --ranks 2 --max-memory 100G) 2>&1 | FileCheck %s --check-prefix=REFUSED

// CHECK: address-space-limit.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}no conclusion{{$}}
// CHECK-NOT: {{abort|panicked|memory allocation of}}
// REFUSED: ccl-sim: error: the system refused memory (lower --max-memory or raise the address-space limit): an allocation of {{[0-9]+}} bytes: no conclusion{{$}}
// REFUSED-NOT: {{.}}
func.func @main() attributes {ccl.kind = "orchestration"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1000000000 : index
  scf.for %i = %c0 to %n step %c1 {
    %m = memref.alloc() : memref<1024xi32>
  }
  return
}
