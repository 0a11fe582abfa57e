"""Ensembles of a model on Dask (`dask.distributed`): parameter sweeps and Monte Carlo over
initial states, serial without a client.

The model is sent to each worker once (`Client.scatter(..., broadcast=True)`): it pickles as
its spec, parameter values and inputs, and each worker derives and compiles it again. Each
task works on a copy (`Model.copy()`, sharing the compiled code), so that tasks on the
threads of one worker do not see each other's parameters. A worker evaluates batches with all
its cores (rayon), so one worker process per machine is the natural layout.

The items go to the workers in chunks, one Dask task per chunk (about four chunks per worker
thread unless `chunk_size` says otherwise), so that Dask's cost per task (a few milliseconds)
is paid per chunk, not per simulation.

The results are those of the serial run bit for bit: each task evaluates the same compiled
code on the same numbers, whichever worker it lands on.

On a cluster, pass a `Client` connected to its scheduler, for example
`Client("tcp://scheduler:8786")`; every worker needs the same udk-dynamics installed and, for
a model read from a URDF, the file at the same path.
"""

__all__ = ["run", "sweep", "monte_carlo"]


def _apply(function, model, item):
    return function(model.copy(), item)


def _with_parameters(function, model, values):
    model.set_parameters(values)
    return function(model)


def _apply_chunk(function, model, chunk):
    return [_apply(function, model, item) for item in chunk]


def _from_state(function, model, state):
    return function(model, *state)


def run(function, model, items, client=None, chunk_size=None):
    """`[function(model_copy, item) for item in items]`, on `client` in tasks of `chunk_size`
    items (by default the items split into about four chunks per worker thread), or in this
    process without a client. The results come back in the order of `items`.

    Raises ValueError for a `chunk_size` that is not a positive integer."""
    items = list(items)
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError(f"`chunk_size` must be a positive integer, not {chunk_size!r}")
    if client is None:
        return [_apply(function, model, item) for item in items]
    if chunk_size is None:
        threads = max(1, sum(client.nthreads().values()))
        chunk_size = max(1, -(-len(items) // (4 * threads)))
    chunks = [items[i:i + chunk_size] for i in range(0, len(items), chunk_size)]
    # A key of its own (hash=False): a key hashed from the model would be shared with a run
    # just before on the same model, whose release could cancel this run's tasks.
    shared = client.scatter(model, broadcast=True, hash=False)
    futures = client.map(_apply_chunk, [function] * len(chunks), [shared] * len(chunks),
                         chunks, pure=False)
    return [result for chunk in client.gather(futures) for result in chunk]


def sweep(function, model, parameters, client=None, chunk_size=None):
    """`function(model)` for each dict of parameter values in `parameters` (a list of
    `{name: value}`), on a copy of `model` with those values set: a parameter sweep.

    Raises BadInputError (on the worker, re-raised here) for an unknown parameter name."""
    return run(lambda m, values: _with_parameters(function, m, values), model, parameters,
               client, chunk_size)


def monte_carlo(function, model, q0, v0, client=None, chunk_size=None):
    """`function(model, q0[i], v0[i])` for each row of the arrays `q0` and `v0` (states ×
    n, for example sampled initial states): Monte Carlo over initial states."""
    if len(q0) != len(v0):
        raise ValueError(f"`q0` has {len(q0)} states but `v0` has {len(v0)}")
    states = list(zip(q0, v0))
    return run(lambda m, state: _from_state(function, m, state), model, states, client,
               chunk_size)
