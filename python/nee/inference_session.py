"""nee.InferenceSession: NEE's sessions with ONNX Runtime's Python API.

Switching from ONNX Runtime is one line::

    session = nee.InferenceSession("model.onnx", bundle="bundle")  # was onnxruntime's
    outputs = session.run(None, {"input": pixels})
"""
import collections
import dataclasses
import os

from nee import _nee
from nee.errors import BundleNotFound, InvalidBundle, InvalidModel, ModelNotFound, as_not_found


@dataclasses.dataclass(frozen=True)
class NodeArg:
    """A graph input or output, as onnxruntime.NodeArg describes it.

    type: "tensor(float)" and the like. shape: an int per fixed dim, the dim's name (a
    str) where it is symbolic, None where it is unknown and unnamed, and [] where the
    model declares no shape (as ONNX Runtime gives it).
    """

    name: str
    type: str
    shape: list


NodeTime = collections.namedtuple("NodeTime", "node op provider kernel microseconds")
NodeTime.__doc__ = ("One node of a profiled run: its name in NEE's optimized graph, its operator, provider, kernel "
                    "and time.")


class InferenceSession:
    """A model NEE runs, with a tuned kernel bundle or NEE's reference kernels.

    path_or_bytes: the ONNX model's path (str or os.PathLike) or its bytes, or the folder
        of a deploy artifact (`nee-tune model.onnx --bundle DIR --deploy APP`), which
        holds its optimized graph, mapped weights and bundle, and runs the input shapes
        it was written for (give no bundle with it).
    bundle: the folder `nee-tune model.onnx --bundle DIR` made for this model; without
        one, the reference kernels run every node.
    threads: the kernel pool's threads; 0, one per CPU this process may use.
    providers: NEE's kernels in order of preference, ["bundle", "reference"] (the
        default) or ["reference"]; ONNX Runtime's provider names are not NEE's.
    profiling: record each node's time in every run (read with profile()).

    Errors are nee.NeeError subclasses carrying NEE's message (nee/errors.py).
    """

    def __init__(self, path_or_bytes, bundle=None, threads=0, providers=None, profiling=False):
        if isinstance(providers, (list, tuple)):
            providers = ",".join(providers)
        if bundle is not None:
            bundle = os.fspath(bundle)
        options = dict(bundle=bundle, threads=threads, providers=providers, profiling=profiling)
        path = None
        try:
            if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
                self._session = _nee.Session.from_bytes(bytes(path_or_bytes), **options)
            else:
                path = os.fspath(path_or_bytes)
                self._session = _nee.Session(path, **options)
        except InvalidModel as e:
            if path is not None and not os.path.exists(path):
                raise as_not_found(e, ModelNotFound) from None
            raise
        except InvalidBundle as e:
            if bundle is not None and not os.path.exists(bundle):
                raise as_not_found(e, BundleNotFound) from None
            raise
        self._providers = (providers or "bundle,reference").split(",")
        self._inputs = [NodeArg(*v) for v in self._session.inputs()]
        self._outputs = [NodeArg(*v) for v in self._session.outputs()]

    def get_inputs(self):
        """The graph inputs (NodeArg), in the model's order."""
        return list(self._inputs)

    def get_outputs(self):
        """The graph outputs (NodeArg), in the model's order."""
        return list(self._outputs)

    def get_providers(self):
        """NEE's kernel providers in order of preference ("bundle", "reference")."""
        return list(self._providers)

    def run(self, output_names, input_feed):
        """Runs the model once and returns the outputs named, in that order (None: all).

        input_feed maps every input's name to a numpy array (or anything np.asarray
        takes) of the input's declared dtype; NEE reads a C-contiguous, aligned array
        of native byte order in place, without a copy, and any other array is converted
        once (one copy, as np.ascontiguousarray makes). The dtype is never converted: a
        float64 array for a float input is an error, as in ONNX Runtime.

        The outputs are numpy arrays over the buffers NEE allocated (no copy), which
        they keep alive; an output whose buffer is an input's or another output's is
        copied, so no output shares memory with an input or another output. Other
        Python threads run while the model does (the GIL is released), and runs of
        one session from several threads overlap.
        """
        return self._session.run(None if output_names is None else list(output_names), input_feed)

    def profile(self):
        """The last run's nodes (NodeTime), for a session made with profiling=True."""
        return [NodeTime(*t) for t in self._session.profile()]
