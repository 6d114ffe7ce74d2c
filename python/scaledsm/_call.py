"""Calls into the Go library that Ctrl-C can stop."""

import threading


def interruptible(call, cancel, name="scaledsm-solve"):
    """Runs call() on another thread so that this one, the main thread when
    called from it, can take Ctrl-C and set cancel (a ctypes.c_int32 that
    the library polls). Returns whether Ctrl-C was pressed; an exception of
    the call is raised here.

    An Event, not Thread.join: a join interrupted by Ctrl-C can report the
    thread finished while it runs. A Ctrl-C that lands while the thread
    starts sets the flag as well, which the call reads whenever it begins.
    """
    failure = []
    done = threading.Event()

    def target():
        try:
            call()
        except BaseException as e:  # pragma: no cover
            failure.append(e)
        finally:
            done.set()

    worker = threading.Thread(target=target, name=name, daemon=True)
    interrupted = False
    while not done.is_set():
        try:
            if worker.ident is None:
                worker.start()
            done.wait(0.05)
        except KeyboardInterrupt:
            cancel.value = 1
            interrupted = True
    if failure:  # pragma: no cover
        raise failure[0]
    return interrupted
