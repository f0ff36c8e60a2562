/*===- CclCAPI.h - the ccl dialect in MLIR's C API ------------------------===*\
|*                                                                            *|
|* The registration handle of the dialect (MLIR's convention for every       *|
|* dialect's C API) and the accessors of its attributes that the C API has   *|
|* no generic form of. The Rust side (dialect/src/ffi) declares the same      *|
|* functions.                                                                *|
\*===----------------------------------------------------------------------===*/
#ifndef CCLIR_CCLCAPI_H
#define CCLIR_CCLCAPI_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(CCL, ccl);

/// `#ccl.window`.
MLIR_CAPI_EXPORTED MlirAttribute cclWindowAttrGet(MlirContext context);
MLIR_CAPI_EXPORTED bool cclAttributeIsAWindow(MlirAttribute attribute);

/// The enum attributes of notify (`op`), wait (`cmp`) and all_reduce
/// (`reduce`): kind 0, 1, 2. The value is the enum case's number in
/// Ccl.td; -1 when `attribute` is not of that kind.
MLIR_CAPI_EXPORTED MlirAttribute cclEnumAttrGet(MlirContext context, int kind, int value);
MLIR_CAPI_EXPORTED int cclEnumAttrGetValue(MlirAttribute attribute, int kind);

/// The links between ops that MLIR's C API lacks (it has the next op of a
/// block and the first, not these): the op before `op` in its block (null
/// for the first op or an op in no block), and the last op of `block` (null
/// for an empty block; unlike mlirBlockGetTerminator, whatever the op is).
MLIR_CAPI_EXPORTED MlirOperation cclOperationGetPrevInBlock(MlirOperation op);
MLIR_CAPI_EXPORTED MlirOperation cclBlockGetLastOperation(MlirBlock block);

#ifdef __cplusplus
}
#endif

#endif // CCLIR_CCLCAPI_H
