"""NEE, a neural execution engine: ONNX models run with auto-tuned kernel bundles.

    import nee
    session = nee.InferenceSession("model.onnx", bundle="bundle")
    outputs = session.run(None, {"input": pixels})

The API follows onnxruntime.InferenceSession (get_inputs, get_outputs, run) over NEE's
C API (libnee); see nee.InferenceSession and nee.errors.
"""
from nee import _nee
from nee.errors import (BundleNotFound, Code, InvalidArgument, InvalidBundle, InvalidModel, ModelNotFound, NeeError,
                        OutOfMemory, RuntimeFailure)
from nee.inference_session import InferenceSession, NodeArg, NodeTime

__version__ = _nee.version()
__all__ = ["InferenceSession", "NodeArg", "NodeTime", "NeeError", "Code", "InvalidArgument", "InvalidModel",
           "InvalidBundle", "OutOfMemory", "RuntimeFailure", "ModelNotFound", "BundleNotFound"]
