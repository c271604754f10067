"""scikit-learn estimators over zeta: BernoulliRBM (a drop-in for scikit-learn's, with a true log-likelihood), DARN,
EBPClassifier and SampledSoftmaxClassifier. Needs scikit-learn (Debian: python3-sklearn); the rest of the package
does not. See docs/python.md."""

try:
    import sklearn  # noqa: F401
except ImportError as error:  # pragma: no cover - only without scikit-learn
    raise ImportError("zeta.sklearn needs scikit-learn (Debian: python3-sklearn; pip: scikit-learn)") from error

from ._darn import DARN
from ._ebp import EBPClassifier
from ._rbm import BernoulliRBM, LikelihoodWarning
from ._softmax import SampledSoftmaxClassifier

__all__ = ["BernoulliRBM", "DARN", "EBPClassifier", "LikelihoodWarning", "SampledSoftmaxClassifier"]
