"""scikit-learn's own estimator checks over every estimator of zeta.sklearn.

The expected failures (each estimator's _more_tags()["_xfail_checks"]) are the checks that train on values the
estimator refuses by design: values above 1 for the RBM's visible probabilities, non-binary values for the DARN.
test_expected_failures_fail_for_their_stated_reason runs each of them and asserts that it fails with exactly that
refusal, so the list hides nothing else."""

import pytest

pytest.importorskip("sklearn")

from sklearn.utils.estimator_checks import _yield_all_checks, parametrize_with_checks  # noqa: E402

from zeta.sklearn import DARN, BernoulliRBM, EBPClassifier, SampledSoftmaxClassifier  # noqa: E402

ESTIMATORS = [
    BernoulliRBM(n_components=8, n_iter=2, random_state=0),
    DARN(hidden_layer_sizes=(4,), n_iter=2, random_state=0),
    EBPClassifier(hidden_layer_sizes=(20,), random_state=0),
    SampledSoftmaxClassifier(random_state=0),
]

REFUSALS = ("takes values in [0, 1]", "takes binary rows only")


@parametrize_with_checks(ESTIMATORS)
def test_scikit_learn_checks(estimator, check):
    check(estimator)


def _refusal_in(error):
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, ValueError) and any(r in str(error) for r in REFUSALS):
            return True
        error = error.__cause__ or error.__context__
    return False


@pytest.mark.parametrize("estimator", [e for e in ESTIMATORS if e._get_tags()["_xfail_checks"]],
                         ids=lambda e: type(e).__name__)  # fmt: skip
def test_expected_failures_fail_for_their_stated_reason(estimator):
    expected = set(estimator._get_tags()["_xfail_checks"])
    ran = set()
    for check in _yield_all_checks(estimator):
        name = getattr(check, "func", check).__name__
        if name not in expected:
            continue
        ran.add(name)
        with pytest.raises(Exception) as failure:
            check(type(estimator).__name__, estimator)
        assert _refusal_in(failure.value), f"{name} failed otherwise: {failure.value!r}"
    assert ran == expected, f"listed but not among the checks: {expected - ran}"
