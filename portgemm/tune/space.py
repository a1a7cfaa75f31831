"""The search space of one variant on one device: every parameter combination, each
marked valid or, with the reason, invalid.

A candidate is valid when :meth:`Variant.resolve` accepts it (the variant's own
restrictions), every extra restriction given to the tuner holds, and
:meth:`Variant.problems` finds nothing against the device's limits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence, Union

from ..errors import ParameterError
from ..runtime.device import Device
from ..families.base import Restriction, Variant

# An extra restriction: a predicate over the resolved parameters, a Restriction, or a
# Python expression over the parameter names ("tile_x * tile_y <= 64").
RestrictionSpec = Union[Callable[[Mapping[str, Any]], bool], Restriction, str]


@dataclass(frozen=True)
class Point:
    """One parameter combination: resolved (defaults filled in) and why it cannot run.

    ``count`` > 1 stands for a whole sub-space cut off at once by a restriction that
    fails on the parameters assigned so far; ``params`` is its first combination.
    """

    params: dict[str, Any]
    problem: str = ""  # empty for a valid point
    count: int = 1

    @property
    def valid(self) -> bool:
        return not self.problem


class _Undecided(Exception):
    """A restriction asked for a parameter that is not assigned yet."""


class _Partial(dict):
    """Parameters assigned so far; reading one still pending raises _Undecided, so a
    restriction is only decided once everything it reads is known."""

    def __init__(self, values, pending):
        super().__init__(values)
        self.pending = pending

    def __getitem__(self, key):
        if key in self.pending:
            raise _Undecided(key)
        return dict.__getitem__(self, key)

    def get(self, key, default=None):
        if key in self.pending:
            raise _Undecided(key)
        return dict.get(self, key, default)

    def __contains__(self, key):
        if key in self.pending:
            raise _Undecided(key)
        return dict.__contains__(self, key)

    def __iter__(self):
        raise _Undecided("iteration")

    def keys(self):
        raise _Undecided("keys")

    def items(self):
        raise _Undecided("items")

    def values(self):
        raise _Undecided("values")


def check_restrictions(variant: Variant, specs: Sequence[RestrictionSpec]) -> None:
    """ValueError for an expression that does not parse, or that names a parameter the
    variant has not: every point would fail it, and nothing would be measured."""
    known = {*variant.defaults, *variant.space, "min", "max"}
    for spec in specs:
        if not isinstance(spec, str):
            continue
        try:
            code = compile(spec, "<restriction>", "eval")
        except SyntaxError as exc:
            raise ValueError(f"restriction {spec!r} is not an expression: {exc.msg}") from None
        unknown = sorted(set(code.co_names) - known)
        if unknown:
            raise ValueError(f"restriction {spec!r}: variant {variant.name!r} has no "
                             f"parameter {', '.join(unknown)}")


def _as_test(spec: RestrictionSpec) -> tuple[Callable[[Mapping[str, Any]], bool], str]:
    if isinstance(spec, Restriction):
        return spec.test, spec.message
    if isinstance(spec, str):
        code = compile(spec, f"<restriction {spec!r}>", "eval")
        return (lambda p: bool(eval(code, {"__builtins__": {"min": min, "max": max}}, dict(p))),
                f"restriction {spec!r} does not hold")
    if callable(spec):
        return spec, f"restriction {getattr(spec, '__name__', repr(spec))} does not hold"
    raise TypeError(f"a restriction must be a callable, a Restriction or an expression "
                    f"string, got {spec!r}")


def identity(params: Mapping[str, Any]) -> tuple:
    """Resolved parameters as a hashable key: equal sets, equal keys."""
    return tuple(sorted(params.items()))


def _broken(params: Mapping[str, Any], tests) -> str:
    """The message of the first (test, message) that ``params`` fail, '' if none; a test
    that cannot be evaluated on them fails."""
    for test, message in tests:
        try:
            if not test(params):
                return message
        except Exception as exc:
            return f"{message} ({type(exc).__name__}: {exc})"
    return ""


def passes(params: Mapping[str, Any], restrictions: Sequence[RestrictionSpec]) -> bool:
    """Whether resolved ``params`` meet every extra restriction (as in
    :func:`enumerate_space`)."""
    return not _broken(params, map(_as_test, restrictions))


def search_space(variant: Variant, space: Mapping[str, Sequence] | None = None) -> dict[str, list]:
    """The variant's space, or ``space`` checked against the variant's parameter names."""
    chosen = dict(variant.space if space is None else space)
    unknown = sorted(set(chosen) - set(variant.defaults))
    if unknown:
        raise ParameterError(
            f"variant {variant.name!r} has no parameter {', '.join(unknown)}; its "
            f"parameters are {', '.join(sorted(variant.defaults)) or 'none'}")
    for name, values in chosen.items():
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            raise ParameterError(f"space[{name!r}] must be a list of values, got {values!r}")
        chosen[name] = list(values)
        if not chosen[name]:
            raise ParameterError(f"space[{name!r}] is empty")
    return chosen


def space_size(space: Mapping[str, Sequence]) -> int:
    size = 1
    for values in space.values():
        size *= len(values)
    return size


def enumerate_space(variant: Variant, device: Device, itemsize: int = 4,
                    space: Mapping[str, Sequence] | None = None,
                    restrictions: Sequence[RestrictionSpec] = ()) -> Iterator[Point]:
    """Every combination of the space in order (last parameter varies fastest), each
    resolved and checked; duplicates after resolving are yielded once.

    The variant's restrictions and the extra ones are tried as soon as every parameter
    they read is assigned (depth first, in the space's order): a sub-space they reject is
    yielded as one invalid Point with its size in ``count``, so a large space with strict
    restrictions (xgemm's) is not walked point by point. Each surviving combination then
    goes through ``variant.resolve`` and ``variant.problems`` as a whole.
    """
    chosen = search_space(variant, space)
    extra = [_as_test(r) for r in restrictions]
    names = list(chosen)
    position = {name: depth for depth, name in enumerate(names)}
    # (test, message, depth before which it cannot be decided: learnt from the parameter
    # it asked for last time; a guess that only saves work, the leaf checks everything)
    checks = [(r.test, f"{variant.name}: {r.message}", 0) for r in variant.rules]
    checks += [(test, message, 0) for test, message in extra]
    fixed = {k: v for k, v in variant.defaults.items() if k not in chosen}
    sizes_below = [1] * (len(names) + 1)
    for depth in range(len(names) - 1, -1, -1):
        sizes_below[depth] = sizes_below[depth + 1] * len(chosen[names[depth]])
    seen = set()

    def leaf(raw):
        try:
            params = variant.resolve(raw)
        except ParameterError as exc:
            return Point({**variant.defaults, **raw}, str(exc))
        if identity(params) in seen:
            return None
        seen.add(identity(params))
        broken = _broken(params, extra)
        if broken:
            return Point(params, broken)
        return Point(params, "; ".join(variant.problems(params, device, itemsize)))

    def walk(depth, assigned, open_checks):
        if not names:  # an empty space: the defaults alone
            point = leaf({})
            if point is not None:
                yield point
            return
        name = names[depth]
        if depth == len(names) - 1:  # cutting off single points saves nothing: resolve them
            for value in chosen[name]:
                assigned[name] = value
                point = leaf(dict(assigned))
                if point is not None:
                    yield point
            del assigned[name]
            return
        pending = set(names[depth + 1:])
        for value in chosen[name]:
            assigned[name] = value
            partial = _Partial({**fixed, **assigned}, pending)
            still_open, failed = [], ""
            for test, message, wait in open_checks:
                if depth < wait:
                    still_open.append((test, message, wait))
                    continue
                try:
                    ok = test(partial)
                except _Undecided as missing:
                    still_open.append((test, message, position.get(missing.args[0], depth + 1)))
                    continue
                except Exception:  # decided at the leaf, where resolve reports it
                    still_open.append((test, message, len(names)))
                    continue
                if not ok:
                    failed = message
                    break
            if failed:
                first = {n: chosen[n][0] for n in names[depth + 1:]}
                yield Point({**variant.defaults, **assigned, **first},
                            f"{failed} (got {dict(assigned)})", sizes_below[depth + 1])
            else:
                yield from walk(depth + 1, assigned, still_open)
        del assigned[name]

    yield from walk(0, {}, checks)


def params_key(params: Mapping[str, Any]) -> str:
    """A canonical text form of a parameter set (sorted name=value pairs)."""
    return ",".join(f"{k}={params[k]}" for k in sorted(params))
