"""Fitting RepC shallow heads (RefChecker, section 4.2); the model and its inference live in factscope.checkers.repc."""

from __future__ import annotations

from typing import Any

import numpy as np

from factscope.checkers.repc import CLASSIFIERS, ShallowHead, _softmax


def fit_head(
    kind: str,
    train_x: np.ndarray,
    train_y: np.ndarray,
    validation_x: np.ndarray,
    validation_y: np.ndarray,
    n_classes: int,
    seed: int = 13,
    knn_k: int = 25,
) -> ShallowHead:
    """Fit one shallow classifier on standardised features.

    logreg: multinomial logistic regression (C=0.5). svm: linear SVM whose decision values become
    probabilities through a softmax temperature fitted on the validation part. mlp: one hidden layer of 256
    ReLU units (a 2-layer MLP), early-stopped on a 10% slice of train. knn: cosine kNN on standardised
    features, probabilities are the neighbours' label shares (k=25).
    """
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(train_x)
    x = scaler.transform(train_x).astype(np.float32)
    arrays: dict[str, np.ndarray] = {"mean": scaler.mean_.astype(np.float32), "scale": scaler.scale_.astype(np.float32)}
    if kind == "logreg":
        from sklearn.linear_model import LogisticRegression

        model = LogisticRegression(C=0.5, max_iter=2000, random_state=seed).fit(x, train_y)
        arrays.update(coef=_full_rows(model.coef_, model.classes_, n_classes), intercept=_full_bias(model, n_classes))
    elif kind == "svm":
        from sklearn.svm import LinearSVC

        model = LinearSVC(C=0.01, random_state=seed, max_iter=5000).fit(x, train_y)
        arrays.update(coef=_full_rows(model.coef_, model.classes_, n_classes), intercept=_full_bias(model, n_classes))
        arrays["temperature"] = np.array(
            _fit_temperature(scaler.transform(validation_x) @ arrays["coef"].T + arrays["intercept"], validation_y)
        )
    elif kind == "mlp":
        from sklearn.neural_network import MLPClassifier

        model = MLPClassifier(
            hidden_layer_sizes=(256,), alpha=1e-2, early_stopping=True, random_state=seed, max_iter=200
        ).fit(x, train_y)
        if len(model.classes_) != n_classes:
            raise ValueError("the MLP needs every class in the training part")
        arrays.update(w0=model.coefs_[0], b0=model.intercepts_[0], w1=model.coefs_[1], b1=model.intercepts_[1])
    elif kind == "knn":
        arrays.update(
            train_x=x.astype(np.float16), train_y=train_y.astype(np.int64), k=np.array(knn_k), n_classes=np.array(n_classes)
        )
    else:
        raise ValueError(f"unknown classifier {kind!r}; choose one of {CLASSIFIERS}")
    return ShallowHead(kind=kind, arrays=arrays)


def _full_rows(coef: np.ndarray, present: np.ndarray, n_classes: int) -> np.ndarray:
    """Per-class weight rows (sklearn gives one row for two classes: class 1 vs class 0)."""
    if coef.shape[0] == 1 and n_classes == 2:
        return np.vstack([-coef[0] / 2, coef[0] / 2]).astype(np.float32)
    if len(present) != n_classes:
        raise ValueError("the training part must contain every class")
    return coef.astype(np.float32)


def _full_bias(model: Any, n_classes: int) -> np.ndarray:
    bias = np.asarray(model.intercept_, dtype=np.float32)
    if bias.shape[0] == 1 and n_classes == 2:
        return np.array([-bias[0] / 2, bias[0] / 2], dtype=np.float32)
    return bias


def _fit_temperature(decision: np.ndarray, labels: np.ndarray) -> float:
    """The softmax temperature with the lowest validation log-loss, on a log grid."""
    best, best_loss = 1.0, np.inf
    for temperature in np.geomspace(0.1, 20.0, 60):
        probs = _softmax(decision * temperature)
        loss = -np.mean(np.log(np.clip(probs[np.arange(len(labels)), labels], 1e-12, 1.0)))
        if loss < best_loss:
            best, best_loss = float(temperature), loss
    return best
