"""Attack: the kernel's riskiest doors. At its first act it makes each system call the sandbox's
seccomp filter denies (tournaments/sandbox/seccomp.py) in a form that would otherwise do something,
logs the errno of each (`NAME: EPERM`), and checks that what a bot needs still works (a thread,
a child process); then it plays on."""

import ctypes
import errno
import subprocess
import sys
import threading

GAMES = "*"
LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.syscall.restype = ctypes.c_long
CALLS = {  # name: the x86_64 system call and its arguments
    "ptrace": (101, 0x4206, 1, 0, 0),  # PTRACE_SEIZE pid 1
    "process_vm_readv": (310, 1, 0, 0, 0, 0, 0),
    "keyctl": (250, 0, -3, 0),
    "add_key": (248, b"user", b"k", b"v", 1, -3),
    "request_key": (249, b"user", b"k", None, 0),
    "bpf": (321, 0, 0, 0),
    "perf_event_open": (298, 0, 0, -1, -1, 0),
    "userfaultfd": (323, 0),
    "io_uring_setup": (425, 1, 0),
    "mount": (165, b"none", b"/tmp", b"tmpfs", 0, 0),
    "unshare": (272, 0x10000000),
    "setns": (308, 0, 0),
    "clone_newuser": (56, 0x10000000 | 17, 0, 0, 0, 0),
    "clone_newns": (56, 0x00020000 | 17, 0, 0, 0, 0),
    "clone3": (435, 0, 0),
    "kexec_load": (246, 0, 0, 0, 0),
    "init_module": (175, 0, 0, b""),
    "open_by_handle_at": (304, 0, 0, 0),
    "personality_no_aslr": (135, 0x0040000),
    "ioctl_tiocsti": (16, 0, 0x5412, b"x"),
    "x32_getpid": (0x40000000 + 39,),
}


class Bot:
    def __init__(self, game, seat, rng):
        self.tried = False

    def act(self, turn):
        if not self.tried:
            self.tried = True
            for name, (number, *args) in CALLS.items():
                result = LIBC.syscall(number, *args)
                code = ctypes.get_errno()
                print(f"{name}: {'succeeded' if result >= 0 else errno.errorcode.get(code, code)}", file=sys.stderr)
            print("personality_default:", "ok" if LIBC.syscall(135, 0) >= 0 else "failed", file=sys.stderr)
            worker = threading.Thread(target=lambda: None)
            worker.start()
            worker.join()
            echoed = subprocess.run(["/bin/echo", "child"], capture_output=True, text=True).stdout.strip()
            print(f"thread: ok, child process: {echoed}", file=sys.stderr, flush=True)
        return turn.legal[0]
