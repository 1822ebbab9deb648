"""Where tasks run: in this process, on a local pool of processes, or on a Dask cluster.

Each executor takes the tasks and yields one `Outcome` per task as runs finish, in any order.

* `run_inline`: one after another in this process (`--workers 0`; debugging, tests).
* `run_local`: a pool of worker processes, one task at a time per worker. A worker that dies
  (killed, out of memory, a crash in native code) fails exactly the task it was running and
  is replaced; the other tasks carry on.
* `run_dask`: an existing dask.distributed cluster (`--dask ADDRESS`, a `tcp://` address or a
  scheduler file). Workers need the same bloatlab installed; the files come back to this
  process, so workers need no access to the results folder.
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing
import os
import signal
import uuid
from collections import deque
from collections.abc import Iterator, Sequence
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from .plan import Task
from .worker import Outcome, execute


def default_workers() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def run_inline(tasks: Sequence[Task]) -> Iterator[Outcome]:
    for task in tasks:
        yield execute(task)


# ----- local process pool -----------------------------------------------------------------------


def _serve(conn: Connection) -> None:
    """A worker process: run tasks from `conn` until it closes or sends None."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and ends us
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        conn.send(execute(task))


class _Worker:
    def __init__(self, context: Any) -> None:
        self.conn, child = multiprocessing.Pipe()
        self.process: BaseProcess = context.Process(
            target=_serve, args=(child,), name="bloatlab-sweep-worker", daemon=True
        )
        self.process.start()
        child.close()
        self.task: Task | None = None

    def stop(self, *, force: bool) -> None:
        if not force and self.process.is_alive():
            with contextlib.suppress(OSError):
                self.conn.send(None)
            self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.conn.close()


def _context() -> Any:
    """forkserver: workers fork from a clean server with bloatlab already imported (fast start,
    and safe while this process has threads); spawn where fork is unavailable."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["bloatlab.sweep._preload"])
        return context
    return multiprocessing.get_context("spawn")


def run_local(tasks: Sequence[Task], workers: int | None = None) -> Iterator[Outcome]:
    if not tasks:
        return
    count = max(1, min(workers or default_workers(), len(tasks)))
    context = _context()
    pool = [_Worker(context) for _ in range(count)]
    pending = deque(tasks)
    finished = False

    def feed(worker: _Worker) -> None:
        if worker.task is None and pending:
            worker.task = pending.popleft()
            worker.conn.send(worker.task)

    try:
        while True:
            for worker in pool:
                feed(worker)
            busy = [w for w in pool if w.task is not None]
            if not busy:
                finished = True
                return
            ready = set(wait([w.conn for w in busy] + [w.process.sentinel for w in busy]))
            for index, worker in enumerate(pool):
                task = worker.task
                if task is None or not ready & {worker.conn, worker.process.sentinel}:
                    continue
                outcome, died = _receive(worker, task)
                if outcome is None:
                    continue  # woke for the sentinel, but the reply is still to be read
                worker.task = None
                if died:
                    worker.stop(force=True)
                    pool[index] = _Worker(context)
                feed(pool[index])  # before the caller stores the outcome: no idle worker
                yield outcome
    finally:
        for worker in pool:
            worker.stop(force=not finished)


def _receive(worker: _Worker, task: Task) -> tuple[Outcome | None, bool]:
    """The worker's reply; or a failure if its process died; or None if neither yet."""
    try:
        if worker.conn.poll():
            outcome: Outcome = worker.conn.recv()
            return outcome, False
    except (EOFError, OSError):
        pass
    if worker.process.is_alive():
        return None, False
    worker.process.join()
    code = worker.process.exitcode
    how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
    hint = " (out of memory?)" if code == -signal.SIGKILL else ""
    error = f"worker process died while running it: {how}{hint}"
    return Outcome.failure(task.key, error), True


# ----- Dask --------------------------------------------------------------------------------------


def run_dask(tasks: Sequence[Task], address: str) -> Iterator[Outcome]:
    try:
        # dask.distributed is optional (bloatlab[dask]) and untyped: use it through Any.
        distributed: Any = importlib.import_module("distributed")
    except ImportError as e:
        raise RuntimeError(
            "--dask needs dask.distributed: pip install 'bloatlab[dask]' (or dask[distributed])"
        ) from e
    if Path(address).is_file():
        client = distributed.Client(scheduler_file=address)
    else:
        client = distributed.Client(address)
    try:
        batch = uuid.uuid4().hex[:8]
        futures = {
            client.submit(execute, task, key=f"bloatlab-{task.key}-{batch}", pure=False): task
            for task in tasks
        }
        for future in distributed.as_completed(futures):
            task = futures.pop(future)
            try:
                outcome: Outcome = future.result()
            except Exception as e:  # the worker died (KilledWorker), the cluster went away
                outcome = Outcome.failure(task.key, f"worker on the Dask cluster failed: {e}")
            future.release()
            yield outcome
    finally:
        client.close()
