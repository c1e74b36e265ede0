"""An adaptive-step ODE integrator written as a plain Python ``while t < t_end`` loop, then jitted.

Heun's method with an embedded Euler step gives an error estimate for every step; a step whose
error is within tolerance is accepted, otherwise it is rejected and retried with a smaller ``dt``,
and ``dt`` grows again when the error is small. How many steps that takes depends on the values
(the stiffness of the system, the tolerance), so under ``jax.jit`` alone the ``while`` test and the
accept / reject ``if`` are traced arrays: ``TracerBoolConversionError``. The usual workaround is to
rewrite the integrator around ``lax.while_loop`` with an explicit state tuple and ``lax.cond`` /
``jnp.where`` for every branch. With ``autograph_lite.jit`` the loop as written becomes one
``lax.while_loop``, compiled once for every tolerance, frequency and damping; its two ``if``s are
selects, as an expert writes them with ``jnp.where``: their branches are small sums and moves, which
cannot change a gradient (a branch with more work in it would be a ``lax.cond``).

The system is a damped harmonic oscillator ``x'' + 2 zeta omega x' + omega**2 x = 0``, compared with
its closed-form solution. Run ``python examples/ode_adaptive.py``.
"""

import re

import jax
import jax.numpy as jnp
import numpy as np

import autograph_lite


def damped_oscillator(y, omega, zeta):
    position, velocity = y[0], y[1]
    return jnp.stack([velocity, -2.0 * zeta * omega * velocity - omega**2 * position])


def integrate(y0, t_end, tol, omega, zeta):
    """Integrate from t = 0 to ``t_end``; returns (y(t_end), accepted steps, rejected steps)."""
    t = 0.0
    y = y0
    dt = 0.5
    accepted = 0
    rejected = 0
    while t < t_end:
        if t + dt > t_end:
            dt = t_end - t
        k1 = damped_oscillator(y, omega, zeta)
        euler = y + dt * k1
        k2 = damped_oscillator(euler, omega, zeta)
        heun = y + 0.5 * dt * (k1 + k2)
        error = jnp.max(jnp.abs(heun - euler)) / (tol * (1.0 + jnp.max(jnp.abs(y))))
        if error <= 1.0:
            t = t + dt
            y = heun
            accepted += 1
        else:
            rejected += 1
        dt = dt * min(4.0, max(0.2, 0.9 / jnp.sqrt(max(error, 1e-10))))
    return y, accepted, rejected


integrate_jit = autograph_lite.jit(integrate)


def exact(y0, t, omega, zeta):
    """The closed-form solution of the under-damped oscillator (zeta < 1)."""
    x0, v0 = y0
    omega_d = omega * np.sqrt(1.0 - zeta**2)
    decay = np.exp(-zeta * omega * t)
    cos, sin = np.cos(omega_d * t), np.sin(omega_d * t)
    a, b = x0, (v0 + zeta * omega * x0) / omega_d
    position = decay * (a * cos + b * sin)
    velocity = decay * ((b * omega_d - zeta * omega * a) * cos - (a * omega_d + zeta * omega * b) * sin)
    return np.array([position, velocity])


def control_flow_primitives(function, *args):
    """The ``lax`` control-flow primitives in the jaxpr of ``function``, nested ones included."""
    return sorted(set(re.findall(r"\b(cond|while|scan)\[", str(jax.make_jaxpr(function)(*args)))))


def main():
    y0 = jnp.array([1.0, 0.0])
    t_end = 5.0
    for tol, omega, zeta in [(1e-3, 2.0, 0.1), (1e-4, 2.0, 0.1), (1e-4, 6.0, 0.3)]:
        y, accepted, rejected = integrate_jit(y0, t_end, tol, omega, zeta)
        error = np.max(np.abs(np.asarray(y) - exact((1.0, 0.0), t_end, omega, zeta)))
        print(f"tol={tol:g} omega={omega} zeta={zeta}: {int(accepted)} accepted, {int(rejected)} rejected steps,"
              f" |y - exact| = {error:.1e}")
    print(f"compiled {integrate_jit._cache_size()} time(s) for 3 (tol, omega, zeta) settings")
    print("control flow in the jaxpr:", ", ".join(control_flow_primitives(autograph_lite.convert(integrate),
                                                                          y0, t_end, 1e-4, 2.0, 0.1)))

    eager_y, eager_accepted, eager_rejected = integrate(y0, t_end, 1e-4, 2.0, 0.1)
    y, accepted, rejected = integrate_jit(y0, t_end, 1e-4, 2.0, 0.1)
    assert (int(accepted), int(rejected)) == (eager_accepted, eager_rejected)
    np.testing.assert_allclose(np.asarray(y), np.asarray(eager_y), rtol=1e-4, atol=1e-5)
    print(f"jit == eager Python loop ({eager_accepted} accepted, {eager_rejected} rejected): ok")


if __name__ == "__main__":
    main()
