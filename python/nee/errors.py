"""NEE's errors as Python exceptions.

Every error NEE reports is a NeeError (a RuntimeError) carrying NEE's message and its
code (``.code``, a :class:`Code`); where a built-in exception fits too, the error is also
one: an invalid argument is a ValueError, a model or bundle path that does not exist a
FileNotFoundError, running out of memory a MemoryError.
"""
import enum


class Code(enum.IntEnum):
    """NeeCode, as include/nee/nee.h numbers it."""

    OK = 0
    INVALID_ARGUMENT = 1
    INVALID_MODEL = 2
    INVALID_BUNDLE = 3
    OUT_OF_MEMORY = 4
    RUNTIME = 5


class NeeError(RuntimeError):
    """An error NEE reported; ``str(error)`` is NEE's message, ``error.code`` its Code."""

    code = Code.RUNTIME


class InvalidArgument(NeeError, ValueError):
    """A missing or unknown input, a tensor of the wrong dtype or shape, a bad option."""

    code = Code.INVALID_ARGUMENT


class InvalidModel(NeeError):
    """The model cannot be read or imported."""

    code = Code.INVALID_MODEL


class InvalidBundle(NeeError):
    """The kernel bundle cannot be verified or loaded, or was built for another model."""

    code = Code.INVALID_BUNDLE


class OutOfMemory(NeeError, MemoryError):
    code = Code.OUT_OF_MEMORY


class RuntimeFailure(NeeError):
    """A failure while the model runs."""

    code = Code.RUNTIME


class ModelNotFound(InvalidModel, FileNotFoundError):
    """The model path does not exist."""


class BundleNotFound(InvalidBundle, FileNotFoundError):
    """The bundle folder does not exist."""


_CODES = {c.value for c in Code}
_BY_CODE = {cls.code: cls for cls in (InvalidArgument, InvalidModel, InvalidBundle, OutOfMemory, RuntimeFailure)}


def error_for(code, message):
    """The exception for NEE's status (code, message); the binding raises what this returns.

    The constructor takes the message alone: OSError (a base of the *NotFound errors)
    reads two arguments as errno and strerror.
    """
    error = _BY_CODE.get(code, NeeError)(message)
    error.code = Code(code) if code in _CODES else code
    return error


def as_not_found(error, cls):
    """The same error as `cls` (ModelNotFound or BundleNotFound), with NEE's message."""
    found = cls(str(error))
    found.code = error.code
    return found
