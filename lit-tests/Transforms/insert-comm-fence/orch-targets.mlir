// Phase B scan targets are the orchestration-like functions: ccl.kind
// "orchestration" or "graph", or ccl.level = "host" together with
// ccl.role = "orchestrator". Other functions are not scanned.
// RUN: ccl-opt %s -p 'builtin.module(ccl-insert-comm-fence)' | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s > /dev/null

// CHECK-LABEL: func.func @k_graph()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-LABEL: func.func @k_host()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-LABEL: func.func @k_host_group()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
func.func @k_graph() attributes {ccl.kind = "incore"} {
  return
}
func.func @k_host() attributes {ccl.kind = "incore"} {
  return
}
func.func @k_host_group() attributes {ccl.kind = "incore"} {
  return
}
func.func @graph() attributes {ccl.kind = "graph"} {
  ccl.barrier
  func.call @k_graph() : () -> ()
  return
}
func.func @host_orchestrator() attributes {ccl.level = "host", ccl.role = "orchestrator"} {
  ccl.barrier
  func.call @k_host() : () -> ()
  return
}
// level/role make a group (or spmd, opaque) function orchestration-like too.
func.func @host_orchestrator_group() attributes {ccl.kind = "group", ccl.level = "host", ccl.role = "orchestrator"} {
  ccl.barrier
  func.call @k_host_group() : () -> ()
  return
}

// Not scan targets: level without role, role without level, another level,
// group, spmd, opaque, no kind.
// CHECK-LABEL: func.func @k_not_scanned()
// CHECK-NEXT: return
func.func @k_not_scanned() attributes {ccl.kind = "incore"} {
  return
}
func.func @host_only() attributes {ccl.level = "host"} {
  ccl.barrier
  func.call @k_not_scanned() : () -> ()
  return
}
func.func @role_only() attributes {ccl.role = "orchestrator"} {
  ccl.barrier
  func.call @k_not_scanned() : () -> ()
  return
}
func.func @device_orchestrator() attributes {ccl.level = "device", ccl.role = "orchestrator"} {
  ccl.barrier
  func.call @k_not_scanned() : () -> ()
  return
}
func.func @group() attributes {ccl.kind = "group"} {
  ccl.barrier
  func.call @k_not_scanned() : () -> ()
  return
}
func.func @spmd() attributes {ccl.kind = "spmd"} {
  ccl.barrier
  func.call @k_not_scanned() : () -> ()
  return
}
func.func @opaque() attributes {ccl.kind = "opaque"} {
  ccl.barrier
  func.call @k_not_scanned() : () -> ()
  return
}
func.func @no_kind() {
  ccl.barrier
  func.call @k_not_scanned() : () -> ()
  return
}

// An explicit InCore kind wins over level/role: the function is a kernel
// (Phase A treats its call as an opaque publish), not a scan target.
// CHECK-LABEL: func.func @kernel_with_host_role()
// CHECK-NEXT: ccl.barrier
// CHECK-NEXT: call @k_not_scanned()
// CHECK-NEXT: ccl.cacheinvalid{{$}}
// CHECK-NEXT: ccl.fence{{$}}
// CHECK-NEXT: return
func.func @kernel_with_host_role() attributes {ccl.kind = "incore", ccl.level = "host", ccl.role = "orchestrator"} {
  ccl.barrier
  func.call @k_not_scanned() : () -> ()
  return
}
