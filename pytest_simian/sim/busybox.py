"""A model of the busybox 1.36 shell that *interprets* container commands for the simulated kubelet.

Why it exists: the embedded cluster must show, for a manifest's ``command``/``args``, the logs, exit
codes, memory use and network behaviour a kind node running ``busybox:1.36`` would show, so that a
settle probe and a subject read the same thing on ``sim`` as on kind. It is also a security boundary:
a subject that can create pods must never gain a shell on the host, so **nothing here executes,
spawns, opens a socket or touches the host file system**. There is no ``subprocess``, ``os.system``,
``eval`` or ``exec`` in this module; arithmetic has its own tiny evaluator.

What it must not do: read a clock (times come in through :class:`Now` results), do I/O, or guess. A
construct it cannot model faithfully makes the program yield :class:`Unmodelled` with a reason, so the
harness can mark a scenario that depends on it NOT VALID on the embedded cluster.

How it is driven: :func:`run_argv` / :func:`run_script` return a generator (a :data:`Program`). The
caller (the simulated kubelet) advances it with ``send(result)`` and receives *actions*:

=====================  ===========================================================  ==================
action                 meaning                                                       caller sends back
=====================  ===========================================================  ==================
:class:`Output`        text written to the container's stdout or stderr             ``None``
:class:`Sleep`         virtual time passes (``math.inf`` = blocks forever)           ``None``
:class:`Connect`       wget/nc opens a TCP connection (resolve through Services)     :class:`ConnectResult`
:class:`Allocate`      resident memory grows by ``nbytes`` (compare with the limit)  ``None``
:class:`Release`       resident memory shrinks by ``nbytes``                         ``None``
:class:`ReadFile`      read a file of the container (mounts, image files)            ``str`` or ``None``
:class:`Now`           the current (virtual) time, Unix seconds                      ``float``
:class:`Listen`        a server starts listening on a port (then blocks)             ``None``
:class:`Busy`          a CPU-bound loop that never ends (``yes > /dev/null``)        (never resumed)
:class:`Unmodelled`    the model cannot go on faithfully                             (never resumed)
:class:`Exit`          the program ends with a status                                (last action)
=====================  ===========================================================  ==================

Message texts mirror busybox 1.36 (see :mod:`pytest_simian.sim.messages`, which cites the source
file of each one: ``shell/ash.c``, ``libbb/xconnect.c``, ``networking/wget.c``, ``coreutils/cat.c``...).
"""

from __future__ import annotations

import math
import re
from collections.abc import Generator, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from pytest_simian.sim import messages as M

__all__ = [
    "Action", "Allocate", "Busy", "Connect", "ConnectResult", "Exit", "Listen", "Now", "Output",
    "Program", "ReadFile", "Release", "ShellSyntaxError", "Sleep", "Unmodelled", "BUSYBOX_APPLETS",
    "kube_expand", "parse", "run_argv", "run_script", "run_to_end",
]

Stream = Literal["stdout", "stderr"]


# --------------------------------------------------------------------------------------------- actions
@dataclass(frozen=True)
class Output:
    stream: Stream
    text: str


@dataclass(frozen=True)
class Sleep:
    seconds: float


@dataclass(frozen=True)
class Connect:
    host: str
    port: int
    kind: Literal["wget", "nc"]
    timeout: float | None = None
    path: str = "/"
    spider: bool = False


@dataclass(frozen=True)
class ConnectResult:
    """What the kubelet found when it resolved a :class:`Connect`.

    outcome: ``ok`` (connected; for wget ``status``/``reason``/``body`` is the HTTP answer),
    ``refused``, ``bad_address`` (name did not resolve), ``timeout`` (no answer within the timeout;
    the caller lets the timeout elapse in virtual time before answering), ``unreachable``.
    ``address`` is the dotted IP the name resolved to (Service ClusterIP, pod IP, 127.0.0.1).
    """

    outcome: Literal["ok", "refused", "bad_address", "timeout", "unreachable"]
    address: str = ""
    status: int = 200
    reason: str = "OK"
    body: str = ""


@dataclass(frozen=True)
class Allocate:
    nbytes: int


@dataclass(frozen=True)
class Release:
    nbytes: int


@dataclass(frozen=True)
class ReadFile:
    path: str


@dataclass(frozen=True)
class Now:
    pass


@dataclass(frozen=True)
class Listen:
    port: int
    protocol: Literal["http", "tcp"] = "tcp"


@dataclass(frozen=True)
class Busy:
    reason: str = "cpu-bound loop"


@dataclass(frozen=True)
class Unmodelled:
    reason: str


@dataclass(frozen=True)
class Exit:
    code: int


Action = Output | Sleep | Connect | Allocate | Release | ReadFile | Now | Listen | Busy | Unmodelled | Exit
Program = Generator[Action, object, None]


class ShellSyntaxError(Exception):
    pass


# busybox 1.36 applets (defconfig, as in the docker-library busybox image). Those we do not model
# make the program Unmodelled instead of "not found".
BUSYBOX_APPLETS = frozenset(
    """[ [[ acpid adjtimex ar arch arp arping ash awk base32 base64 basename bc beep blkdiscard blkid
    blockdev bootchartd brctl bunzip2 bzcat bzip2 cal cat chat chattr chgrp chmod chown chpasswd chpst
    chroot chrt chvt cksum clear cmp comm conspy cp cpio crc32 crond crontab cryptpw cttyhack cut date dc
    dd deallocvt delgroup deluser depmod devmem df dhcprelay diff dirname dmesg dnsd dnsdomainname
    dos2unix dpkg dpkg-deb du dumpkmap dumpleases echo ed egrep eject env envdir envuidgid ether-wake
    expand expr factor fakeidentd fallocate false fatattr fbset fbsplash fdflush fdformat fdisk fgconsole
    fgrep find findfs flock fold free freeramdisk fsck fsck.minix fsfreeze fstrim fsync ftpd ftpget
    ftpput fuser getfattr getopt getty grep groups gunzip gzip halt hd hdparm head hexdump hexedit hostid
    hostname httpd hush hwclock i2cdetect i2cdump i2cget i2cset i2ctransfer id ifconfig ifdown ifenslave
    ifplugd ifup inetd init insmod install ionice iostat ip ipaddr ipcalc ipcrm ipcs iplink ipneigh
    iproute iprule iptunnel kbd_mode kill killall killall5 klogd last less link linux32 linux64 linuxrc
    ln loadfont loadkmap logger login logname logread losetup lpd lpq lpr ls lsattr lsmod lsof lspci
    lsscsi lsusb lzcat lzma lzop makedevs makemime man md5sum mdev mesg microcom mim mkdir mkdosfs mke2fs
    mkfifo mkfs.ext2 mkfs.minix mkfs.vfat mknod mkpasswd mkswap mktemp modinfo modprobe more mount
    mountpoint mpstat mt mv nameif nanddump nandwrite nbd-client nc netstat nice nl nmeter nohup nologin
    nproc nsenter nslookup ntpd nuke od openvt partprobe passwd paste patch pgrep pidof ping ping6
    pipe_progress pivot_root pkill pmap popmaildir poweroff powertop printenv printf ps pscan pstree pwd
    pwdx raidautorun rdate rdev readahead readlink readprofile realpath reboot reformime remove-shell
    renice reset resize resume rev rm rmdir rmmod route rpm rpm2cpio rtcwake run-init run-parts runlevel
    runsv runsvdir rx script scriptreplay sed sendmail seq setarch setconsole setfattr setfont setkeycodes
    setlogcons setpriv setserial setsid setuidgid sh sha1sum sha256sum sha3sum sha512sum showkey shred
    shuf slattach sleep smemcap softlimit sort split ssl_client start-stop-daemon stat strings stty su
    sulogin sum sv svc svlogd svok swapoff swapon switch_root sync sysctl syslogd tac tail tar taskset
    tc tcpsvd tee telnet telnetd test tftp tftpd time timeout top touch tr traceroute traceroute6 tree
    true truncate ts tsort tty ttysize tunctl ubiattach ubidetach ubimkvol ubirename ubirmvol ubirsvol
    ubiupdatevol udhcpc udhcpc6 udhcpd udpsvd uevent umount uname unexpand uniq unix2dos unlink unlzma
    unshare unxz unzip uptime users usleep uudecode uuencode vconfig vi vlock volname w wall watch
    watchdog wc wget which who whoami whois xargs xxd xz xzcat yes zcat zcip""".split()
)

_BIN_DIRS = ("/bin/", "/usr/bin/", "/sbin/", "/usr/sbin/", "/usr/local/bin/")
_SHELLS = frozenset({"sh", "ash", "hush"})
MAX_STEPS_WITHOUT_TIME = 20000
MAX_INLINE_BYTES = 1 << 20


class _ExitShell(Exception):
    def __init__(self, code: int) -> None:
        self.code = code


class _Break(Exception):
    def __init__(self, n: int) -> None:
        self.n = n


class _Continue(Exception):
    def __init__(self, n: int) -> None:
        self.n = n


class _Stop(Exception):
    """The program yielded a terminal action (Busy/Unmodelled) and must not continue."""


# ------------------------------------------------------------------------------------------- lexing
_OPS = ("&&", "||", ";;", "<<", ">>", ">&", "<&", "&>", ">|", ";", "&", "|", "(", ")", "<", ">", "\n")


@dataclass
class _Tok:
    kind: Literal["WORD", "OP", "IO", "EOF"]
    text: str
    line: int = 1


def _scan_balanced(s: str, i: int, open_: str, close: str) -> int:
    """Return the index just past the bracket matching s[i-1] == open_ (quotes respected)."""
    depth = 1
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            j = s.find("'", i + 1)
            if j < 0:
                raise ShellSyntaxError("unterminated quoted string")
            i = j + 1
            continue
        if c == '"':
            i = _scan_dquote(s, i + 1)
            continue
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ShellSyntaxError(f"unexpected EOF while looking for matching `{close}'")


def _scan_dquote(s: str, i: int) -> int:
    n = len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return i + 1
        if c == "$" and i + 1 < n and s[i + 1] == "(":
            i = _scan_balanced(s, i + 2, "(", ")")
            continue
        if c == "`":
            j = s.find("`", i + 1)
            if j < 0:
                raise ShellSyntaxError("unterminated quoted string")
            i = j + 1
            continue
        i += 1
    raise ShellSyntaxError("unterminated quoted string")


def _tokenize(s: str) -> list[_Tok]:
    toks: list[_Tok] = []
    i, n, line = 0, len(s), 1
    while i < n:
        c = s[i]
        if c in " \t":
            i += 1
            continue
        if c == "\\" and i + 1 < n and s[i + 1] == "\n":
            i += 2
            line += 1
            continue
        if c == "#":
            while i < n and s[i] != "\n":
                i += 1
            continue
        op = next((o for o in _OPS if s.startswith(o, i)), None)
        if op is not None:
            toks.append(_Tok("OP", op, line))
            if op == "\n":
                line += 1
            i += len(op)
            continue
        start = i
        while i < n:
            c = s[i]
            if c in " \t\n;&|()<>":
                break
            if c == "\\":
                i += 2
                continue
            if c == "'":
                j = s.find("'", i + 1)
                if j < 0:
                    raise ShellSyntaxError("unterminated quoted string")
                i = j + 1
                continue
            if c == '"':
                i = _scan_dquote(s, i + 1)
                continue
            if c == "$" and i + 1 < n and s[i + 1] == "(":
                i = _scan_balanced(s, i + 2, "(", ")")
                continue
            if c == "$" and i + 1 < n and s[i + 1] == "{":
                i = _scan_balanced(s, i + 2, "{", "}")
                continue
            if c == "`":
                j = s.find("`", i + 1)
                if j < 0:
                    raise ShellSyntaxError("unterminated quoted string")
                i = j + 1
                continue
            i += 1
        word = s[start:i]
        if word.isdigit() and i < n and s[i] in "<>":
            toks.append(_Tok("IO", word, line))
        else:
            toks.append(_Tok("WORD", word, line))
    toks.append(_Tok("EOF", "", line))
    return toks


# ------------------------------------------------------------------------------------------ parsing
@dataclass
class Redir:
    fd: int
    op: str  # > >> < >& <&
    target: str  # raw word


@dataclass
class Simple:
    assigns: list[str]
    words: list[str]
    redirs: list[Redir]
    line: int = 1


@dataclass
class Pipeline:
    cmds: list[Node]
    negate: bool = False


@dataclass
class AndOr:
    first: Node
    rest: list[tuple[str, Node]]


@dataclass
class Seq:
    items: list[tuple[Node, bool]]  # (node, background)


@dataclass
class If:
    arms: list[tuple[Node, Node]]
    orelse: Node | None


@dataclass
class Loop:
    until: bool
    cond: Node
    body: Node


@dataclass
class For:
    var: str
    words: list[str] | None
    body: Node


@dataclass
class Group:
    body: Node
    subshell: bool
    redirs: list[Redir] = field(default_factory=list)


Node = Simple | Pipeline | AndOr | Seq | If | Loop | For | Group

_RESERVED = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "in", "{", "}",
             "!", "case", "esac", "function", "select"}
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


class _Parser:
    def __init__(self, src: str) -> None:
        self.toks = _tokenize(src)
        self.i = 0

    def peek(self) -> _Tok:
        return self.toks[self.i]

    def next(self) -> _Tok:
        t = self.toks[self.i]
        self.i += 1
        return t

    def at_word(self, *words: str) -> bool:
        t = self.peek()
        return t.kind == "WORD" and t.text in words

    def at_op(self, *ops: str) -> bool:
        t = self.peek()
        return t.kind == "OP" and t.text in ops

    def skip_newlines(self) -> None:
        while self.at_op("\n"):
            self.next()

    def expect_word(self, w: str) -> None:
        self.skip_newlines()
        t = self.next()
        if not (t.kind == "WORD" and t.text == w):
            raise ShellSyntaxError(f"syntax error: unexpected {t.text or 'end of file'!r} (expecting \"{w}\")")

    def parse_program(self) -> Seq:
        seq = self.parse_list(())
        t = self.peek()
        if t.kind != "EOF":
            raise ShellSyntaxError(f"syntax error: unexpected \"{t.text}\"")
        return seq

    def parse_list(self, terminators: tuple[str, ...]) -> Seq:
        items: list[tuple[Node, bool]] = []
        while True:
            self.skip_newlines()
            t = self.peek()
            if t.kind == "EOF" or (t.kind == "WORD" and t.text in terminators) or (
                t.kind == "OP" and t.text in terminators
            ):
                break
            node = self.parse_and_or()
            bg = False
            if self.at_op(";", "&", "\n"):
                bg = self.next().text == "&"
            items.append((node, bg))
        return Seq(items)

    def parse_and_or(self) -> Node:
        first = self.parse_pipeline()
        rest: list[tuple[str, Node]] = []
        while self.at_op("&&", "||"):
            op = self.next().text
            self.skip_newlines()
            rest.append((op, self.parse_pipeline()))
        return AndOr(first, rest) if rest else first

    def parse_pipeline(self) -> Node:
        negate = False
        if self.at_word("!"):
            self.next()
            negate = True
        cmds = [self.parse_command()]
        while self.at_op("|"):
            self.next()
            self.skip_newlines()
            cmds.append(self.parse_command())
        if len(cmds) == 1 and not negate:
            return cmds[0]
        return Pipeline(cmds, negate)

    def parse_redirs(self, into: list[Redir]) -> bool:
        t = self.peek()
        fd: int | None = None
        if t.kind == "IO":
            fd = int(t.text)
            self.next()
            t = self.peek()
        if t.kind == "OP" and t.text in (">", ">>", "<", ">&", "<&", "&>", ">|", "<<"):
            op = self.next().text
            if op == "<<":
                raise _UnmodelledSyntax("here-documents")
            tgt = self.next()
            if tgt.kind != "WORD":
                raise ShellSyntaxError(f"syntax error: unexpected \"{tgt.text or 'newline'}\"")
            if op == "&>":
                into.append(Redir(1, ">", tgt.text))
                into.append(Redir(2, ">&", "1"))
                return True
            if op == ">|":
                op = ">"
            if fd is None:
                fd = 0 if op in ("<", "<&") else 1
            into.append(Redir(fd, op, tgt.text))
            return True
        if fd is not None:
            raise ShellSyntaxError("syntax error: bad redirection")
        return False

    def parse_command(self) -> Node:
        t = self.peek()
        if t.kind == "WORD":
            w = t.text
            if w == "if":
                return self.parse_if()
            if w in ("while", "until"):
                self.next()
                cond = self.parse_list(("do",))
                self.expect_word("do")
                body = self.parse_list(("done",))
                self.expect_word("done")
                return self._with_redirs(Loop(w == "until", cond, body))
            if w == "for":
                return self.parse_for()
            if w == "{":
                self.next()
                body = self.parse_list(("}",))
                self.expect_word("}")
                return self._with_redirs(Group(body, False))
            if w in ("case", "function", "select"):
                raise _UnmodelledSyntax(f"'{w}' compound commands")
        if t.kind == "OP" and t.text == "(":
            self.next()
            body = self.parse_list((")",))
            self.skip_newlines()
            if not self.at_op(")"):
                raise ShellSyntaxError("syntax error: unexpected end of file (expecting \")\")")
            self.next()
            return self._with_redirs(Group(body, True))
        return self.parse_simple()

    def _with_redirs(self, node: Node) -> Node:
        redirs: list[Redir] = []
        while self.parse_redirs(redirs):
            pass
        if not redirs:
            return node
        if isinstance(node, Group):
            node.redirs.extend(redirs)
            return node
        return Group(node, False, redirs)

    def parse_if(self) -> Node:
        self.next()
        arms: list[tuple[Node, Node]] = []
        orelse: Node | None = None
        cond = self.parse_list(("then",))
        self.expect_word("then")
        body = self.parse_list(("elif", "else", "fi"))
        arms.append((cond, body))
        while True:
            self.skip_newlines()
            t = self.next()
            if t.kind == "WORD" and t.text == "elif":
                cond = self.parse_list(("then",))
                self.expect_word("then")
                body = self.parse_list(("elif", "else", "fi"))
                arms.append((cond, body))
            elif t.kind == "WORD" and t.text == "else":
                orelse = self.parse_list(("fi",))
                self.expect_word("fi")
                break
            elif t.kind == "WORD" and t.text == "fi":
                break
            else:
                raise ShellSyntaxError(f"syntax error: unexpected {t.text or 'end of file'!r} (expecting \"fi\")")
        return self._with_redirs(If(arms, orelse))

    def parse_for(self) -> Node:
        self.next()
        var = self.next()
        if var.kind != "WORD" or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", var.text):
            raise ShellSyntaxError("syntax error: bad for loop variable")
        words: list[str] | None = None
        self.skip_newlines()
        if self.at_word("in"):
            self.next()
            words = []
            while self.peek().kind == "WORD":
                words.append(self.next().text)
            if self.at_op(";", "\n"):
                self.next()
        elif self.at_op(";"):
            self.next()
        self.expect_word("do")
        body = self.parse_list(("done",))
        self.expect_word("done")
        return self._with_redirs(For(var.text, words, body))

    def parse_simple(self) -> Node:
        assigns: list[str] = []
        words: list[str] = []
        redirs: list[Redir] = []
        line = self.peek().line
        while True:
            if self.parse_redirs(redirs):
                continue
            t = self.peek()
            if t.kind != "WORD":
                break
            if not words and _ASSIGN.match(t.text):
                assigns.append(self.next().text)
                continue
            if not words and t.text in ("then", "else", "elif", "fi", "do", "done", "}", "in"):
                raise ShellSyntaxError(f"syntax error: unexpected \"{t.text}\"")
            words.append(self.next().text)
            if len(words) == 1 and self.at_op("(") and self.toks[self.i + 1].text == ")":
                raise _UnmodelledSyntax("shell functions")
        if not assigns and not words and not redirs:
            t = self.peek()
            raise ShellSyntaxError(f"syntax error: unexpected \"{t.text if t.kind != 'EOF' else 'end of file'}\"")
        return Simple(assigns, words, redirs, line)


class _UnmodelledSyntax(Exception):
    pass


def parse(script: str) -> Seq:
    """Parse a shell script into a syntax tree (raises :class:`ShellSyntaxError`)."""
    return _Parser(script).parse_program()


# --------------------------------------------------------------------------------------- word parts
@dataclass
class _Part:
    kind: Literal["lit", "var", "cmd", "arith", "param"]
    text: str
    quoted: bool


def _word_parts(raw: str, quoted: bool = False) -> list[_Part]:
    parts: list[_Part] = []
    buf: list[str] = []
    i, n = 0, len(raw)

    def flush(q: bool) -> None:
        if buf:
            parts.append(_Part("lit", "".join(buf), q))
            buf.clear()

    while i < n:
        c = raw[i]
        if c == "\\":
            if i + 1 < n:
                nxt = raw[i + 1]
                if quoted and nxt not in '$`"\\\n':
                    buf.append("\\" + nxt)
                elif nxt != "\n":
                    flush(quoted)
                    parts.append(_Part("lit", nxt, True))
                i += 2
            else:
                buf.append("\\")
                i += 1
            continue
        if c == "'" and not quoted:
            j = raw.index("'", i + 1)
            flush(False)
            parts.append(_Part("lit", raw[i + 1 : j], True))
            i = j + 1
            continue
        if c == '"' and not quoted:
            j = _scan_dquote(raw, i + 1)
            flush(False)
            inner = _word_parts(raw[i + 1 : j - 1], quoted=True)
            parts.extend(inner or [_Part("lit", "", True)])
            i = j
            continue
        if c == "`":
            j = raw.index("`", i + 1)
            flush(quoted)
            parts.append(_Part("cmd", raw[i + 1 : j], quoted))
            i = j + 1
            continue
        if c == "$" and i + 1 < n:
            nxt = raw[i + 1]
            if raw.startswith("$((", i):
                j = _scan_balanced(raw, i + 2, "(", ")")
                flush(quoted)
                parts.append(_Part("arith", raw[i + 3 : j - 2], quoted))
                i = j
                continue
            if nxt == "(":
                j = _scan_balanced(raw, i + 2, "(", ")")
                flush(quoted)
                parts.append(_Part("cmd", raw[i + 2 : j - 1], quoted))
                i = j
                continue
            if nxt == "{":
                j = _scan_balanced(raw, i + 2, "{", "}")
                flush(quoted)
                parts.append(_Part("param", raw[i + 2 : j - 1], quoted))
                i = j
                continue
            m = re.match(r"[A-Za-z_][A-Za-z0-9_]*|[0-9?#$!@*-]", raw[i + 1 :])
            if m:
                flush(quoted)
                parts.append(_Part("var", m.group(0), quoted))
                i += 1 + m.end()
                continue
        buf.append(c)
        i += 1
    flush(quoted)
    return parts


# -------------------------------------------------------------------------------------- arithmetic
_ARITH_TOK = re.compile(
    r"\s*(?:(0x[0-9a-fA-F]+|\d+)|([A-Za-z_][A-Za-z0-9_]*)"
    r"|(\*\*|<=|>=|==|!=|&&|\|\||<<|>>|[-+*/%()<>!~^&|]))"
)


def _arith(expr: str, lookup: Mapping[str, str]) -> int:
    toks: list[tuple[str, str]] = []
    pos = 0
    expr = expr.strip()
    while pos < len(expr):
        m = _ARITH_TOK.match(expr, pos)
        if not m or m.end() == pos:
            raise ShellSyntaxError("arithmetic syntax error")
        pos = m.end()
        if m.group(1):
            toks.append(("n", m.group(1)))
        elif m.group(2):
            toks.append(("v", m.group(2)))
        else:
            toks.append(("o", m.group(3)))
        while pos < len(expr) and expr[pos].isspace():
            pos += 1
    idx = 0

    def val(name: str) -> int:
        v = lookup.get(name, "") or "0"
        try:
            return int(v, 0)
        except ValueError:
            return _arith(v, lookup)

    def peek() -> tuple[str, str] | None:
        return toks[idx] if idx < len(toks) else None

    def take() -> tuple[str, str]:
        nonlocal idx
        if idx >= len(toks):
            raise ShellSyntaxError("arithmetic syntax error")
        idx += 1
        return toks[idx - 1]

    prec = [["||"], ["&&"], ["|"], ["^"], ["&"], ["==", "!="], ["<", "<=", ">", ">="], ["<<", ">>"],
            ["+", "-"], ["*", "/", "%"]]

    def unary() -> int:
        t = take()
        if t == ("o", "-"):
            return -unary()
        if t == ("o", "+"):
            return unary()
        if t == ("o", "!"):
            return int(not unary())
        if t == ("o", "~"):
            return ~unary()
        if t == ("o", "("):
            v = binary(0)
            if take() != ("o", ")"):
                raise ShellSyntaxError("arithmetic syntax error")
            return v
        if t[0] == "n":
            return int(t[1], 0)
        if t[0] == "v":
            return val(t[1])
        raise ShellSyntaxError("arithmetic syntax error")

    def binary(level: int) -> int:
        if level == len(prec):
            return unary()
        left = binary(level + 1)
        while (p := peek()) is not None and p[0] == "o" and p[1] in prec[level]:
            op = take()[1]
            right = binary(level + 1)
            if op in ("/", "%") and right == 0:
                raise ShellSyntaxError("divide by zero")
            left = {
                "||": lambda a, b: int(bool(a) or bool(b)), "&&": lambda a, b: int(bool(a) and bool(b)),
                "|": lambda a, b: a | b, "^": lambda a, b: a ^ b, "&": lambda a, b: a & b,
                "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b), "<": lambda a, b: int(a < b),
                "<=": lambda a, b: int(a <= b), ">": lambda a, b: int(a > b), ">=": lambda a, b: int(a >= b),
                "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b, "+": lambda a, b: a + b,
                "-": lambda a, b: a - b, "*": lambda a, b: a * b,
                "/": lambda a, b: int(a / b), "%": lambda a, b: a - int(a / b) * b,
            }[op](left, right)
        return left

    if not toks:
        return 0
    result = binary(0)
    if idx != len(toks):
        raise ShellSyntaxError("arithmetic syntax error")
    return result


# ------------------------------------------------------------------------------------------- streams
@dataclass
class _Zero:
    """A stream of ``n`` NUL bytes (``/dev/zero`` through ``head -c``); never materialised."""

    n: int


class _Sink:
    def __init__(self, kind: Literal["stdout", "stderr", "null", "capture", "file"], path: str = "",
                 append: bool = False) -> None:
        self.kind = kind
        self.path = path
        self.append = append
        self.buf: list[str] = []
        self.zero = 0


@dataclass
class _IO:
    fds: dict[int, _Sink]
    stdin: str | _Zero | None = None


_STDOUT = _Sink("stdout")
_STDERR = _Sink("stderr")
_NULL = _Sink("null")


# -------------------------------------------------------------------------------------------- shell
Gen = Generator[Action, object, Any]
Builtin = "object"


def _go_bool_fmt(v: str) -> str:
    return v


class _Shell:
    def __init__(self, *, env: Mapping[str, str], hostname: str, arg0: str, args: list[str],
                 programs: frozenset[str], foreign: frozenset[str], fs: dict[str, str] | None = None,
                 script_file: bool = False) -> None:
        self.vars: dict[str, str] = dict(env)
        self.vars.setdefault("HOSTNAME", hostname)
        self.vars.setdefault("HOME", "/root")
        self.vars.setdefault("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
        self.vars.setdefault("PWD", "/")
        self.vars.setdefault("IFS", " \t\n")
        self.hostname = hostname
        self.arg0 = arg0
        self.args = list(args)
        self.status = 0
        self.errexit = False
        self.xtrace = False
        self.programs = programs
        self.foreign = foreign
        self.fs = fs if fs is not None else {}
        self.steps = 0
        self.script_file = script_file
        self.line = 1
        self.rand = 17
        self.bg_deadline = 0.0

    # -- helpers
    def child(self) -> _Shell:
        c = _Shell(env=self.vars, hostname=self.hostname, arg0=self.arg0, args=self.args,
                   programs=self.programs, foreign=self.foreign, fs=self.fs, script_file=self.script_file)
        c.status = self.status
        c.errexit = self.errexit
        c.xtrace = self.xtrace
        c.steps = self.steps
        return c

    def tick(self) -> Generator[Action, object, None]:
        self.steps += 1
        if self.steps > MAX_STEPS_WITHOUT_TIME:
            yield Busy("loop runs without sleeping; output after this point is not modelled")
            raise _Stop

    def timed(self, action: Action) -> Generator[Action, object, object]:
        self.steps = 0
        return (yield action)

    def write(self, io: _IO, fd: int, text: str) -> Generator[Action, object, None]:
        if not text:
            return
        sink = io.fds.get(fd)
        if sink is None:
            return
        if sink.kind in ("stdout", "stderr"):
            yield Output(sink.kind, text)
        elif sink.kind == "capture":
            sink.buf.append(text)
        elif sink.kind == "file":
            if sink.path.startswith("/dev/shm/"):
                yield Allocate(len(text.encode()))
            self.fs[sink.path] = self.fs.get(sink.path, "") + text

    def err(self, io: _IO, msg: str) -> Generator[Action, object, None]:
        yield from self.write(io, 2, msg + "\n")

    def shell_err(self, io: _IO, msg: str) -> Generator[Action, object, None]:
        prefix = f"{self.arg0}: "
        if self.script_file:
            prefix += f"line {self.line}: "
        yield from self.write(io, 2, prefix + msg + "\n")

    def lookup_var(self, name: str) -> str | None:
        if name == "?":
            return str(self.status)
        if name == "$":
            return "1"
        if name == "!":
            return ""
        if name == "#":
            return str(len(self.args))
        if name == "-":
            return ("e" if self.errexit else "") + ("x" if self.xtrace else "")
        if name in ("@", "*"):
            return " ".join(self.args)
        if name == "0":
            return self.arg0
        if name.isdigit():
            k = int(name)
            return self.args[k - 1] if 0 < k <= len(self.args) else None
        if name == "RANDOM":
            self.rand = (self.rand * 1103515245 + 12345) & 0x7FFFFFFF
            return str(self.rand % 32768)
        return self.vars.get(name)

    # -- expansion
    def expand_param(self, body: str, io: _IO) -> Gen:
        if body.startswith("#") and len(body) > 1:
            return str(len(self.lookup_var(body[1:]) or ""))  # type: ignore[return-value]
        m = re.match(r"([A-Za-z_][A-Za-z0-9_]*|[0-9?#$!@*-])(:?[-=+?])?(.*)$", body, re.S)
        if not m:
            yield Unmodelled(f"parameter expansion ${{{body}}}")
            raise _Stop
        name, op, word = m.group(1), m.group(2), m.group(3)
        if op is None and word:
            yield Unmodelled(f"parameter expansion ${{{body}}}")
            raise _Stop
        value = self.lookup_var(name)
        if op is None:
            return value or ""  # type: ignore[return-value]
        unset = value is None or (op.startswith(":") and value == "")
        kind = op[-1]
        if kind == "-":
            if unset:
                return (yield from self.expand_to_str(word, io))
            return value
        if kind == "=":
            if unset:
                value = yield from self.expand_to_str(word, io)
                self.vars[name] = value  # type: ignore[assignment]
            return value
        if kind == "+":
            if unset:
                return ""  # type: ignore[return-value]
            return (yield from self.expand_to_str(word, io))
        if unset:
            msg = (yield from self.expand_to_str(word, io)) or "parameter not set"
            yield from self.shell_err(io, f"{name}: {msg}")
            raise _ExitShell(2 if not self.script_file else 2)
        return value

    def expand_to_str(self, raw: str, io: _IO) -> Gen:
        fields = yield from self.expand_word(raw, io, split=False)
        return " ".join(fields)  # type: ignore[return-value]

    def command_subst(self, script: str, io: _IO) -> Gen:
        sub = self.child()
        cap = _Sink("capture")
        sub_io = _IO({0: io.fds.get(0, _NULL), 1: cap, 2: io.fds.get(2, _STDERR)}, None)
        try:
            tree = parse(script)
        except ShellSyntaxError as e:
            yield from self.shell_err(io, str(e))
            self.status = 2
            return ""  # type: ignore[return-value]
        except _UnmodelledSyntax as e:
            yield Unmodelled(str(e))
            raise _Stop from None
        try:
            st = yield from sub.run_node(tree, sub_io)
        except _ExitShell as e:
            st = e.code
        self.steps = sub.steps
        self.status = st
        if cap.zero:
            yield Unmodelled("command substitution of binary data")
            raise _Stop
        return "".join(cap.buf).rstrip("\n")  # type: ignore[return-value]

    def expand_word(self, raw: str, io: _IO, split: bool = True) -> Generator[Action, object, list[str]]:
        parts = _word_parts(raw)
        fields: list[str] = []
        cur: list[str] = []
        have = False  # current field exists (even if empty, because quoted)
        for p in parts:
            if p.kind == "lit":
                if not p.quoted and split and re.search(r"[*?]|\[.+\]", p.text):
                    yield Unmodelled(f"pathname expansion of {p.text!r}")
                    raise _Stop
                cur.append(p.text)
                have = have or p.quoted or bool(p.text)
                continue
            if p.kind == "var":
                if p.text == "@" and p.quoted and split:
                    if self.args:
                        cur.append(self.args[0])
                        for a in self.args[1:]:
                            fields.append("".join(cur))
                            cur = [a]
                        have = True
                    continue
                val = self.lookup_var(p.text) or ""
            elif p.kind == "param":
                val = yield from self.expand_param(p.text, io)
                val = str(val)
            elif p.kind == "cmd":
                val = yield from self.command_subst(p.text, io)
            else:
                inner = yield from self.expand_to_str_noquote(p.text, io)
                try:
                    val = str(_arith(inner, _VarView(self)))
                except ShellSyntaxError as e:
                    yield from self.shell_err(io, "arithmetic syntax error")
                    raise _ExitShell(2) from e
            if p.quoted or not split:
                cur.append(val)
                have = True
                continue
            ifs = self.vars.get("IFS", " \t\n")
            pieces = [x for x in re.split("[" + re.escape(ifs) + "]+", val)] if ifs else [val]
            if val and val[0] in ifs and (cur or have):
                fields.append("".join(cur))
                cur, have = [], False
            pieces = [x for x in pieces if x != ""] if ifs else pieces
            for k, piece in enumerate(pieces):
                if k > 0:
                    fields.append("".join(cur))
                    cur = []
                cur.append(piece)
                have = True
            if val and val[-1] in ifs and pieces:
                fields.append("".join(cur))
                cur, have = [], False
        if cur or have:
            fields.append("".join(cur))
        if not split:
            return ["".join(fields)] if fields else [""]
        return fields

    def expand_to_str_noquote(self, text: str, io: _IO) -> Gen:
        # arithmetic bodies: expand $vars and $(...) but keep everything else
        out = yield from self.expand_word('"' + text.replace('"', '\\"') + '"', io, split=False)
        return out[0]  # type: ignore[return-value]

    def expand_words(self, raws: Iterable[str], io: _IO) -> Generator[Action, object, list[str]]:
        out: list[str] = []
        for r in raws:
            out.extend((yield from self.expand_word(r, io)))
        return out

    # -- execution
    def run_node(self, node: Node, io: _IO, cond: bool = False) -> Gen:
        if isinstance(node, Seq):
            st = 0
            for item, bg in node.items:
                if bg:
                    st = yield from self.run_background(item, io)
                else:
                    st = yield from self.run_node(item, io, cond)
            return st
        if isinstance(node, Simple):
            self.line = node.line
            st = yield from self.run_simple(node, io)
            self.status = st
            if st != 0 and self.errexit and not cond:
                raise _ExitShell(st)
            return st
        if isinstance(node, AndOr):
            st = yield from self.run_node(node.first, io, cond=True)
            for op, nxt in node.rest:
                if (op == "&&" and st == 0) or (op == "||" and st != 0):
                    st = yield from self.run_node(nxt, io, cond=cond or nxt is not node.rest[-1][1])
            self.status = st
            return st
        if isinstance(node, Pipeline):
            st = yield from self.run_pipeline(node, io)
            if node.negate:
                st = int(st == 0)
            self.status = st
            if st != 0 and self.errexit and not cond and not node.negate:
                raise _ExitShell(st)
            return st
        if isinstance(node, If):
            for c, body in node.arms:
                st = yield from self.run_node(c, io, cond=True)
                if st == 0:
                    return (yield from self.run_node(body, io, cond))
            if node.orelse is not None:
                return (yield from self.run_node(node.orelse, io, cond))
            self.status = 0
            return 0
        if isinstance(node, Loop):
            st = 0
            while True:
                yield from self.tick()
                c = yield from self.run_node(node.cond, io, cond=True)
                if (c == 0) == node.until:
                    break
                try:
                    st = yield from self.run_node(node.body, io, cond)
                except _Break as b:
                    if b.n > 1:
                        raise _Break(b.n - 1) from None
                    break
                except _Continue as c2:
                    if c2.n > 1:
                        raise _Continue(c2.n - 1) from None
            self.status = st
            return st
        if isinstance(node, For):
            items = (yield from self.expand_words(node.words, io)) if node.words is not None else list(self.args)
            st = 0
            for it in items:
                yield from self.tick()
                self.vars[node.var] = it
                try:
                    st = yield from self.run_node(node.body, io, cond)
                except _Break as b:
                    if b.n > 1:
                        raise _Break(b.n - 1) from None
                    break
                except _Continue as c2:
                    if c2.n > 1:
                        raise _Continue(c2.n - 1) from None
            self.status = st
            return st
        if isinstance(node, Group):
            io2 = yield from self.apply_redirs(node.redirs, io)
            if io2 is None:
                return 1
            if node.subshell:
                sub = self.child()
                try:
                    st = yield from sub.run_node(node.body, io2, cond)
                except _ExitShell as e:
                    st = e.code
                self.steps = sub.steps
            else:
                st = yield from self.run_node(node.body, io2, cond)
            self.status = st
            return st
        raise AssertionError(node)

    def run_background(self, node: Node, io: _IO) -> Gen:
        # Only a few background shapes are modelled: a CPU burner or a plain sleep.
        words = node.words if isinstance(node, Simple) else []
        name = words[0] if words else ""
        if isinstance(node, Simple) and name == "yes":
            yield Unmodelled("background CPU load ('yes &') alongside other commands")
            raise _Stop
        if isinstance(node, Simple) and name == "sleep" and len(words) == 2:
            d = _parse_duration(words[1])
            if d is not None:
                start = yield from self.timed(Now())
                self.bg_deadline = max(self.bg_deadline, float(start) + d)  # type: ignore[arg-type]
                self.status = 0
                return 0
        yield Unmodelled("background jobs ('&')")
        raise _Stop

    def run_pipeline(self, node: Pipeline, io: _IO) -> Gen:
        stdin: str | _Zero | None = io.stdin
        st = 0
        for k, cmd in enumerate(node.cmds):
            last = k == len(node.cmds) - 1
            if last:
                sub_io = _IO(dict(io.fds), stdin)
            else:
                cap = _Sink("capture")
                sub_io = _IO({**io.fds, 1: cap}, stdin)
            sub = self.child()
            try:
                st = yield from sub.run_node(cmd, sub_io, cond=True)
            except _ExitShell as e:
                st = e.code
            self.steps = sub.steps
            if not last:
                stdin = _Zero(cap.zero) if cap.zero else "".join(cap.buf)
        return st

    def apply_redirs(self, redirs: list[Redir], io: _IO) -> Generator[Action, object, _IO | None]:
        if not redirs:
            return io
        fds = dict(io.fds)
        stdin = io.stdin
        for r in redirs:
            target = yield from self.expand_to_str(r.target, io)
            if r.op in (">&", "<&"):
                if target == "-":
                    fds.pop(r.fd, None)
                    continue
                if not target.isdigit():
                    if r.op == ">&" and r.fd == 1:
                        fds[1] = self.open_sink(target, False)
                        fds[2] = fds[1]
                        continue
                    yield from self.shell_err(io, f"{target}: bad number")
                    return None
                src = int(target)
                if src not in fds:
                    yield from self.shell_err(io, f"{src}: Bad file descriptor")
                    return None
                fds[r.fd] = fds[src]
            elif r.op in (">", ">>"):
                fds[r.fd] = self.open_sink(target, r.op == ">>")
                if fds[r.fd].kind == "file" and r.op == ">":
                    self.fs[target] = ""
            else:  # <
                if target == "/dev/null":
                    stdin = ""
                elif target == "/dev/zero":
                    yield Unmodelled("reading /dev/zero on stdin")
                    raise _Stop
                else:
                    content = yield from self.read_file(target)
                    if content is None:
                        yield from self.shell_err(io, f"can't open '{target}': No such file or directory")
                        return None
                    stdin = content
        return _IO(fds, stdin)

    def open_sink(self, target: str, append: bool) -> _Sink:
        if target == "/dev/null":
            return _NULL
        if target in ("/dev/stdout", "/proc/self/fd/1"):
            return _STDOUT
        if target in ("/dev/stderr", "/proc/self/fd/2"):
            return _STDERR
        return _Sink("file", target, append)

    def read_file(self, path: str) -> Generator[Action, object, str | None]:
        if path in self.fs:
            return self.fs[path]
        if path == "/etc/hostname":
            return self.hostname + "\n"
        result = yield ReadFile(path)
        return result if isinstance(result, str) else None

    def run_simple(self, node: Simple, io: _IO) -> Gen:
        yield from self.tick()
        words = yield from self.expand_words(node.words, io)
        assigns: list[tuple[str, str]] = []
        for a in node.assigns:
            name, _, raw = a.partition("=")
            val = yield from self.expand_to_str(raw, io) if raw else _empty()
            assigns.append((name, val))
        io2 = yield from self.apply_redirs(node.redirs, io)
        if io2 is None:
            return 1
        if not words:
            for k, v in assigns:
                self.vars[k] = v
            return self.status if node.words or any("$(" in a or "`" in a for a in node.assigns) else 0
        if self.xtrace:
            yield from self.write(io2, 2, "+ " + " ".join(words) + "\n")
        saved = {k: self.vars.get(k) for k, _ in assigns}
        for k, v in assigns:
            self.vars[k] = v
        try:
            return (yield from self.run_command(words, io2))
        finally:
            if words and words[0] not in _SPECIAL_BUILTINS:
                for k, old in saved.items():
                    if old is None:
                        self.vars.pop(k, None)
                    else:
                        self.vars[k] = old

    def run_command(self, argv: list[str], io: _IO) -> Gen:
        name = argv[0]
        base = name
        for d in _BIN_DIRS:
            if name.startswith(d) and "/" not in name[len(d):]:
                base = name[len(d):]
                break
        fn = _COMMANDS.get(base)
        if fn is not None and (base in _SHELL_BUILTINS or base in self.programs):
            return (yield from fn(self, argv, io))
        if base in self.foreign or (base in BUSYBOX_APPLETS and base in self.programs):
            yield Unmodelled(f"program '{base}' cannot be interpreted by the busybox model")
            raise _Stop
        if "/" in name:
            content = yield from self.read_file(name)
            if content is None:
                yield from self.shell_err(io, f"{name}: not found")
                return 127
            if content.startswith(("#!/bin/sh", "#!/bin/ash", "#!/bin/busybox sh")):
                return (yield from self.run_script_text(content, name, argv[1:], io))
            yield Unmodelled(f"executable file {name!r}")
            raise _Stop
        yield from self.shell_err(io, M.BUSYBOX_SH_NOT_FOUND.format(name=name))
        return 127

    def run_script_text(self, text: str, arg0: str, args: list[str], io: _IO) -> Gen:
        sub = _Shell(env=self.vars, hostname=self.hostname, arg0=arg0, args=args, programs=self.programs,
                     foreign=self.foreign, fs=self.fs, script_file=True)
        sub.steps = self.steps
        try:
            tree = parse(text)
        except ShellSyntaxError as e:
            yield from sub.shell_err(io, str(e))
            return 2
        except _UnmodelledSyntax as e:
            yield Unmodelled(str(e))
            raise _Stop from None
        try:
            st = yield from sub.run_node(tree, io)
        except _ExitShell as e:
            st = e.code
        self.steps = sub.steps
        return st


def _empty() -> Generator[Action, object, str]:
    return ""
    yield  # pragma: no cover


class _VarView(Mapping[str, str]):
    def __init__(self, sh: _Shell) -> None:
        self.sh = sh

    def __getitem__(self, k: str) -> str:
        v = self.sh.lookup_var(k)
        if v is None:
            raise KeyError(k)
        return v

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.sh.vars)

    def __len__(self) -> int:
        return len(self.sh.vars)


# ------------------------------------------------------------------------------------------ commands
CommandFn = "Callable"


def _parse_duration(arg: str) -> float | None:
    """busybox sleep (FEATURE_FANCY_SLEEP + FLOAT_DURATION): N[.N][smhd], 'inf'/'infinity'."""
    if arg in ("inf", "infinity", "INF", "Infinity"):
        return math.inf
    m = re.fullmatch(r"(\d+(?:\.\d*)?|\.\d+)([smhd]?)", arg)
    if not m:
        return None
    return float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)]


def _c_sleep(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    if len(argv) < 2:
        yield from sh.err(io, "BusyBox v1.36.1 (2023-05-18 22:34:17 UTC) multi-call binary.\n\n"
                          "Usage: sleep [N]...")
        return 1
    total = 0.0
    for a in argv[1:]:
        d = _parse_duration(a)
        if d is None:
            yield from sh.err(io, M.BUSYBOX_SLEEP_INVALID.format(arg=a))
            return 1
        total += d
    yield from sh.timed(Sleep(total))
    return 0


def _c_true(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    return 0
    yield  # pragma: no cover


def _c_false(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    return 1
    yield  # pragma: no cover


def _c_exit(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    code = sh.status
    if len(argv) > 1:
        if not re.fullmatch(r"-?\d+", argv[1]):
            yield from sh.shell_err(io, f"exit: Illegal number: {argv[1]}")
            raise _ExitShell(2)
        code = int(argv[1]) & 0xFF
    raise _ExitShell(code)


def _c_echo(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    args = argv[1:]
    newline, escapes = True, False
    while args and re.fullmatch(r"-[neE]+", args[0]):
        for ch in args[0][1:]:
            if ch == "n":
                newline = False
            elif ch == "e":
                escapes = True
            else:
                escapes = False
        args = args[1:]
    text = " ".join(args)
    if escapes:
        text, stop = _unescape(text, echo=True)
        if stop:
            newline = False
    yield from sh.write(io, 1, text + ("\n" if newline else ""))
    return 0


def _unescape(text: str, echo: bool = False) -> tuple[str, bool]:
    out: list[str] = []
    i = 0
    table = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "\\": "\\",
             "e": "\x1b"}
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            n = text[i + 1]
            if n in table:
                out.append(table[n])
                i += 2
                continue
            if n == "c" and echo:
                return "".join(out), True
            if n == "0" or (n.isdigit() and not echo):
                m = re.match(r"0?([0-7]{1,3})", text[i + 1 :])
                if m:
                    out.append(chr(int(m.group(1), 8)))
                    i += 1 + m.end()
                    continue
        out.append(c)
        i += 1
    return "".join(out), False


def _c_printf(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    if len(argv) < 2:
        yield from sh.err(io, "BusyBox v1.36.1 (2023-05-18 22:34:17 UTC) multi-call binary.\n\n"
                          "Usage: printf FORMAT [ARG]...")
        return 1
    fmt, args = argv[1], argv[2:]
    out: list[str] = []
    status = 0
    spec = re.compile(r"%([-+ #0]*)(\d+|\*)?(?:\.(\d+))?([sdiouxXcfgeEb%])")
    first = True
    while first or args:
        first = False
        consumed = False
        pos = 0
        for m in spec.finditer(fmt):
            out.append(_unescape(fmt[pos : m.start()])[0])
            pos = m.end()
            flags, width, prec, conv = m.groups()
            if conv == "%":
                out.append("%")
                continue
            arg = args.pop(0) if args else ""
            consumed = True
            if conv in "diouxX":
                try:
                    v = int(arg, 0) if arg else 0
                except ValueError:
                    yield from sh.err(io, f"printf: invalid number '{arg}'")
                    v, status = 0, 1
                pyconv = "d" if conv in "iu" else conv
                out.append(("%" + flags + (width or "") + pyconv) % v)
            elif conv in "fgeE":
                try:
                    fv = float(arg) if arg else 0.0
                except ValueError:
                    yield from sh.err(io, f"printf: invalid number '{arg}'")
                    fv, status = 0.0, 1
                out.append(("%" + flags + (width or "") + ("." + prec if prec else "") + conv) % fv)
            elif conv == "c":
                out.append(arg[:1])
            elif conv == "b":
                out.append(_unescape(arg, echo=True)[0])
            else:
                s = arg[: int(prec)] if prec else arg
                out.append(("%" + flags + (width or "") + "s") % s)
        out.append(_unescape(fmt[pos:])[0])
        if not consumed:
            break
    yield from sh.write(io, 1, "".join(out))
    return status


def _c_colon(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    return 0
    yield  # pragma: no cover


def _c_export(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    for a in argv[1:]:
        if "=" in a:
            k, _, v = a.partition("=")
            sh.vars[k] = v
    return 0
    yield  # pragma: no cover


def _c_unset(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    for a in argv[1:]:
        if not a.startswith("-"):
            sh.vars.pop(a, None)
    return 0
    yield  # pragma: no cover


def _c_set(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    args = argv[1:]
    while args and args[0][:1] in "-+" and args[0] not in ("-", "--"):
        on = args[0][0] == "-"
        for ch in args[0][1:]:
            if ch == "e":
                sh.errexit = on
            elif ch == "x":
                sh.xtrace = on
            elif ch in "uo":
                pass
            else:
                yield Unmodelled(f"set -{ch}")
                raise _Stop
        args = args[1:]
    if args and args[0] in ("-", "--"):
        args = args[1:]
    if args or (len(argv) > 1 and argv[-1] == "--"):
        sh.args = list(args)
    return 0


def _c_break(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    raise _Break(int(argv[1]) if len(argv) > 1 and argv[1].isdigit() else 1)
    yield  # pragma: no cover


def _c_continue(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    raise _Continue(int(argv[1]) if len(argv) > 1 and argv[1].isdigit() else 1)
    yield  # pragma: no cover


def _c_trap(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    # Traps only run on signals; the model does not deliver signals to the shell, so recording
    # them is enough (a kill by the kubelet ends the program without running the trap).
    return 0
    yield  # pragma: no cover


def _c_wait(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    if sh.bg_deadline:
        now = yield from sh.timed(Now())
        left = sh.bg_deadline - float(now)  # type: ignore[arg-type]
        sh.bg_deadline = 0.0
        if left > 0:
            yield from sh.timed(Sleep(left))
    return 0


def _c_cd(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    sh.vars["PWD"] = argv[1] if len(argv) > 1 else sh.vars.get("HOME", "/")
    return 0
    yield  # pragma: no cover


def _c_pwd(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    yield from sh.write(io, 1, sh.vars.get("PWD", "/") + "\n")
    return 0


def _c_shift(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    n = int(argv[1]) if len(argv) > 1 and argv[1].isdigit() else 1
    if n > len(sh.args):
        return 1
    sh.args = sh.args[n:]
    return 0
    yield  # pragma: no cover


def _c_hostname(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    if len(argv) > 1 and not argv[1].startswith("-"):
        yield from sh.err(io, "hostname: sethostname: Operation not permitted")
        return 1
    yield from sh.write(io, 1, sh.hostname + "\n")
    return 0


def _c_whoami(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    yield from sh.write(io, 1, "root\n")
    return 0


def _c_id(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    yield from sh.write(io, 1, "uid=0(root) gid=0(root) groups=0(root),10(wheel)\n")
    return 0


def _c_env(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    if len(argv) > 1:
        yield Unmodelled("env with a command")
        raise _Stop
    text = "".join(f"{k}={v}\n" for k, v in sh.vars.items() if k not in ("IFS", "PWD_") and k.isidentifier())
    yield from sh.write(io, 1, text)
    return 0


_STRFTIME_OK = set("aAbBdeHIjmMpSyYZzsTFDRncu%")


def _c_date(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    fmt = "%a %b %e %H:%M:%S %Z %Y"
    for a in argv[1:]:
        if a.startswith("+"):
            fmt = a[1:]
        elif a in ("-u", "-R", "--utc"):
            if a == "-R":
                fmt = "%a, %d %b %Y %H:%M:%S %z"
        else:
            yield Unmodelled(f"date {a}")
            raise _Stop
    for ch in re.findall(r"%(.)", fmt):
        if ch not in _STRFTIME_OK:
            yield Unmodelled(f"date format %{ch}")
            raise _Stop
    now = yield from sh.timed(Now())
    assert isinstance(now, int | float)
    dt = datetime.fromtimestamp(float(now), UTC)
    fmt2 = fmt.replace("%e", f"{dt.day:2d}").replace("%Z", "UTC").replace("%s", str(int(now)))
    yield from sh.write(io, 1, dt.strftime(fmt2) + "\n")
    return 0


def _c_cat(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    files = [a for a in argv[1:] if a != "-u"]
    if not files:
        files = ["-"]
    status = 0
    for f in files:
        if f == "-":
            if isinstance(io.stdin, _Zero):
                yield from _emit_zero(sh, io, io.stdin.n)
            elif io.stdin:
                yield from sh.write(io, 1, io.stdin)
            continue
        if f == "/dev/zero":
            yield from _emit_zero(sh, io, None)
            continue
        if f == "/dev/null":
            continue
        content = yield from sh.read_file(f)
        if content is None:
            yield from sh.err(io, M.BUSYBOX_CAT_CANT_OPEN.format(path=f))
            status = 1
            continue
        yield from sh.write(io, 1, content)
    return status


def _emit_zero(sh: _Shell, io: _IO, n: int | None) -> Generator[Action, object, None]:
    sink = io.fds.get(1)
    if sink is None or sink.kind == "null":
        if n is None:
            yield Busy("reading /dev/zero forever")
            raise _Stop
        return
    if sink.kind == "capture":
        if n is None:
            yield Unmodelled("an endless /dev/zero stream into a pipe")
            raise _Stop
        sink.zero += n
        return
    if n is None or n > MAX_INLINE_BYTES:
        yield Unmodelled("a very large binary write to the container log")
        raise _Stop
    yield from sh.write(io, 1, "\x00" * n)


def _parse_size(s: str) -> int | None:
    m = re.fullmatch(r"(\d+)([bkKmMgG]?)(B?)", s)
    if not m:
        return None
    mult = {"": 1, "b": 512, "k": 1024, "K": 1024, "m": 1 << 20, "M": 1 << 20, "g": 1 << 30, "G": 1 << 30}
    return int(m.group(1)) * mult[m.group(2)]


def _head_tail_opts(argv: list[str]) -> tuple[int | None, int | None, list[str], bool] | None:
    lines: int | None = None
    nbytes: int | None = None
    files: list[str] = []
    plus = False
    args = argv[1:]
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-n", "-c") and i + 1 < len(args):
            val = args[i + 1]
            i += 2
        elif re.fullmatch(r"-[nc].+", a):
            val = a[2:]
            a = a[:2]
            i += 1
        elif re.fullmatch(r"-\d+", a):
            lines = int(a[1:])
            i += 1
            continue
        elif a in ("-f", "-F", "-q", "-v"):
            if a in ("-f", "-F"):
                return None
            i += 1
            continue
        else:
            files.append(a)
            i += 1
            continue
        if val.startswith("+"):
            plus = True
            val = val[1:]
        size = _parse_size(val.lstrip("-"))
        if size is None:
            return None
        if a == "-n":
            lines = size
        else:
            nbytes = size
    return lines, nbytes, files, plus


def _c_head(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    return (yield from _head_tail(sh, argv, io, head=True))


def _c_tail(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    return (yield from _head_tail(sh, argv, io, head=False))


def _head_tail(sh: _Shell, argv: list[str], io: _IO, head: bool) -> Gen:
    opts = _head_tail_opts(argv)
    if opts is None:
        yield Unmodelled(f"{argv[0]} with options {' '.join(argv[1:])}")
        raise _Stop
    lines, nbytes, files, plus = opts
    if plus:
        yield Unmodelled(f"{argv[0]} +N")
        raise _Stop
    if len(files) > 1:
        yield Unmodelled(f"{argv[0]} of several files")
        raise _Stop
    src: str | _Zero | None
    if not files or files[0] == "-":
        src = io.stdin if io.stdin is not None else ""
    elif files[0] == "/dev/zero":
        src = _Zero(-1)
    else:
        content = yield from sh.read_file(files[0])
        if content is None:
            yield from sh.err(io, f"{argv[0]}: can't open '{files[0]}': No such file or directory")
            return 1
        src = content
    if isinstance(src, _Zero):
        total = src.n
        if nbytes is not None:
            n = nbytes if total < 0 else min(nbytes, total)
            if not head and total < 0:
                yield Busy(f"{argv[0]} -c of an endless /dev/zero")
                raise _Stop
            if not head:
                # tail -c N keeps only the last N bytes in memory
                yield Allocate(n)
                yield from _emit_zero(sh, io, n)
                yield Release(n)
                return 0
            yield from _emit_zero(sh, io, n)
            return 0
        # line-based on NUL data: there is no newline, so the whole stream is one line.
        if total < 0:
            if head:
                yield Unmodelled(f"{argv[0]} -n of an endless /dev/zero")
                raise _Stop
            yield Busy("tail buffers an endless line from /dev/zero")
            raise _Stop
        want = 10 if lines is None else lines
        if want == 0:
            return 0
        if head:
            yield from _emit_zero(sh, io, total)
            return 0
        # busybox tail keeps the whole (single) line in memory before printing it
        yield Allocate(total)
        yield from _emit_zero(sh, io, total)
        yield Release(total)
        return 0
    text = src or ""
    if nbytes is not None:
        data = text.encode()
        out = data[:nbytes] if head else data[len(data) - nbytes :] if nbytes else b""
        yield from sh.write(io, 1, out.decode(errors="replace"))
        return 0
    want = 10 if lines is None else lines
    parts = text.splitlines(keepends=True)
    chosen = parts[:want] if head else (parts[len(parts) - want :] if want else [])
    yield from sh.write(io, 1, "".join(chosen))
    return 0


def _c_wc(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    flags = "".join(a[1:] for a in argv[1:] if a.startswith("-"))
    files = [a for a in argv[1:] if not a.startswith("-")]
    if files:
        yield Unmodelled("wc of files")
        raise _Stop
    src = io.stdin
    if isinstance(src, _Zero):
        lines, words, chars = 0, 0, src.n
    else:
        s = src or ""
        lines, words, chars = s.count("\n"), len(s.split()), len(s.encode())
    vals = []
    if not flags:
        vals = [lines, words, chars]
        yield from sh.write(io, 1, " ".join(f"{v:>9}" for v in vals) + "\n")
        return 0
    for f in "lwc":
        if f in flags:
            vals.append({"l": lines, "w": words, "c": chars}[f])
    yield from sh.write(io, 1, " ".join(str(v) for v in vals) + "\n")
    return 0


def _c_yes(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    sink = io.fds.get(1)
    if sink is not None and sink.kind == "null":
        yield Busy("yes > /dev/null")
        raise _Stop
    yield Unmodelled("'yes' writing an endless stream somewhere other than /dev/null")
    raise _Stop


def _c_test(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    args = argv[1:]
    if argv[0] == "[":
        if not args or args[-1] != "]":
            yield from sh.err(io, "[: missing ]")
            return 2
        args = args[:-1]
    try:
        result = yield from _test_expr(sh, args)
    except ValueError as e:
        yield from sh.err(io, f"{'[' if argv[0] == '[' else 'test'}: {e}")
        return 2
    return 0 if result else 1


def _test_expr(sh: _Shell, args: list[str]) -> Generator[Action, object, bool]:
    if not args:
        return False
    if args[0] == "!":
        return not (yield from _test_expr(sh, args[1:]))
    for i, a in enumerate(args):
        if a in ("-a", "-o") and 0 < i < len(args) - 1:
            left = yield from _test_expr(sh, args[:i])
            right = yield from _test_expr(sh, args[i + 1 :])
            return (left and right) if a == "-a" else (left or right)
    if len(args) == 1:
        return args[0] != ""
    if len(args) == 2:
        op, x = args
        if op == "-z":
            return x == ""
        if op == "-n":
            return x != ""
        if op in ("-e", "-f", "-s", "-r"):
            content = yield from sh.read_file(x)
            if op == "-s":
                return bool(content)
            return content is not None
        if op == "-d":
            if x in ("/", "/tmp", "/etc", "/bin", "/root", "/var", "/usr", "/dev", "/proc"):
                return True
            yield Unmodelled("test -d on a path the model does not know")
            raise _Stop
        if op in ("-x", "-L", "-h", "-p", "-S", "-t", "-w", "-b", "-c"):
            yield Unmodelled(f"test {op}")
            raise _Stop
        raise ValueError(f"{op}: unknown operand")
    if len(args) == 3:
        a, op, b = args
        if op in ("=", "=="):
            return a == b
        if op == "!=":
            return a != b
        if op in ("-eq", "-ne", "-lt", "-le", "-gt", "-ge"):
            try:
                na, nb = int(a), int(b)
            except ValueError:
                bad = a if not re.fullmatch(r"-?\d+", a) else b
                raise ValueError(f"invalid number '{bad}'") from None
            return {"-eq": na == nb, "-ne": na != nb, "-lt": na < nb, "-le": na <= nb, "-gt": na > nb,
                    "-ge": na >= nb}[op]
        if op in ("<", ">"):
            return (a < b) if op == "<" else (a > b)
    raise ValueError("syntax error")


def _url_split(url: str) -> tuple[str, int, str] | None:
    m = re.fullmatch(r"http://([^/:?#]+|\[[^\]]+\])(?::(\d+))?([/?#].*)?", url)
    if not m:
        return None
    return m.group(1), int(m.group(2) or 80), m.group(3) or "/"


def _c_wget(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    quiet = spider = False
    out_file: str | None = None
    timeout: float | None = None
    urls: list[str] = []
    args = argv[1:]
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a.startswith("--"):
            name, eq, val = a[2:].partition("=")
            if name == "spider":
                spider = True
            elif name == "quiet":
                quiet = True
            elif name in ("output-document", "timeout", "tries", "user-agent", "header", "proxy",
                          "directory-prefix", "post-data"):
                if not eq:
                    if i >= len(args):
                        yield from sh.err(io, f"wget: option '--{name}' requires an argument")
                        return 1
                    val = args[i]
                    i += 1
                if name == "output-document":
                    out_file = val
                elif name == "timeout":
                    timeout = float(val)
                elif name in ("post-data", "proxy", "directory-prefix"):
                    yield Unmodelled(f"wget --{name}")
                    raise _Stop
            elif name in ("no-check-certificate", "no-verbose", "continue", "server-response",
                          "no-cache", "passive-ftp"):
                if name == "server-response":
                    yield Unmodelled("wget -S")
                    raise _Stop
            else:
                yield Unmodelled(f"wget --{name}")
                raise _Stop
            continue
        if a.startswith("-") and len(a) > 1:
            j = 1
            while j < len(a):
                ch = a[j]
                j += 1
                if ch in "OTtUYPhe":
                    val = a[j:]
                    if not val:
                        if i >= len(args):
                            yield from sh.err(io, f"wget: option requires an argument -- '{ch}'")
                            return 1
                        val = args[i]
                        i += 1
                    if ch == "O":
                        out_file = val
                    elif ch == "T":
                        timeout = float(val)
                    elif ch in "PYe":
                        yield Unmodelled(f"wget -{ch}")
                        raise _Stop
                    break
                if ch == "q":
                    quiet = True
                elif ch == "s":
                    spider = True
                elif ch in "cn":
                    pass
                elif ch == "S":
                    yield Unmodelled("wget -S")
                    raise _Stop
                else:
                    yield from sh.err(io, f"wget: unrecognized option: {ch}")
                    return 1
            continue
        urls.append(a)
    if not urls:
        yield from sh.err(io, "BusyBox v1.36.1 (2023-05-18 22:34:17 UTC) multi-call binary.\n\n"
                          "Usage: wget [-cqS] [--spider] [-O FILE] [-o LOGFILE] [--header STR]\n"
                          "\t[--post-data STR | --post-file FILE] [-Y on/off]\n"
                          "\t[-P DIR] [-U AGENT] [-T SEC] URL...")
        return 1
    status = 0
    for url in urls:
        if url.startswith("https://"):
            yield Unmodelled("wget over https (TLS)")
            raise _Stop
        parts = _url_split(url)
        if parts is None:
            yield from sh.err(io, M.BUSYBOX_WGET_NOT_HTTP.format(url=url))
            return 1
        host, port, path = parts
        host_disp = url[len("http://") :].split("/", 1)[0].split("?", 1)[0]
        res = yield from sh.timed(Connect(host, port, "wget", timeout, path, spider))
        if not isinstance(res, ConnectResult):
            res = ConnectResult("refused", "127.0.0.1")
        if res.outcome == "bad_address":
            yield from sh.err(io, M.BUSYBOX_BAD_ADDRESS.format(applet="wget", host=host))
            return 1
        if not quiet:
            yield from sh.err(io, M.BUSYBOX_WGET_CONNECTING.format(host=host_disp, addr=f"{res.address}:{port}"))
        if res.outcome == "refused":
            yield from sh.err(io, M.BUSYBOX_CANT_CONNECT.format(applet="wget", ip=res.address,
                                                                error="Connection refused"))
            return 1
        if res.outcome == "unreachable":
            yield from sh.err(io, M.BUSYBOX_CANT_CONNECT.format(applet="wget", ip=res.address,
                                                                error="Host is unreachable"))
            return 1
        if res.outcome == "timeout":
            yield from sh.err(io, M.BUSYBOX_WGET_TIMED_OUT)
            return 1
        if res.status >= 400 or res.status < 200:
            yield from sh.err(io, M.BUSYBOX_WGET_SERVER_ERROR.format(status=res.status, reason=res.reason))
            return 1
        if spider:
            if not quiet:
                yield from sh.err(io, "remote file exists")
            continue
        target = out_file
        if target is None:
            name = path.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
            target = name or "index.html"
        if target == "-":
            if not quiet:
                yield from sh.err(io, "writing to stdout")
                yield Unmodelled("wget progress meter (timing-dependent output)")
                raise _Stop
            yield from sh.write(io, 1, res.body)
            if not quiet:
                yield from sh.err(io, "written to stdout")
        elif target == "/dev/null":
            if not quiet:
                yield Unmodelled("wget progress meter (timing-dependent output)")
                raise _Stop
        else:
            if not quiet:
                yield Unmodelled("wget progress meter (timing-dependent output)")
                raise _Stop
            sh.fs[target] = res.body
    return status


def _c_nc(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    zero = verbose = listen = False
    timeout: float | None = None
    port_opt: str | None = None
    pos: list[str] = []
    args = argv[1:]
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a.startswith("-") and len(a) > 1:
            j = 1
            while j < len(a):
                ch = a[j]
                j += 1
                if ch in "wpeis":
                    val = a[j:] or (args[i] if i < len(args) else "")
                    if not a[j:]:
                        i += 1
                    if ch == "w":
                        timeout = float(val)
                    elif ch == "p":
                        port_opt = val
                    else:
                        yield Unmodelled(f"nc -{ch}")
                        raise _Stop
                    break
                if ch == "z":
                    zero = True
                elif ch == "v":
                    verbose = True
                elif ch == "l":
                    listen = True
                elif ch in "nk":
                    pass
                else:
                    yield Unmodelled(f"nc -{ch}")
                    raise _Stop
            continue
        pos.append(a)
    if listen:
        port = port_opt or (pos[0] if pos else "")
        if not port.isdigit():
            yield Unmodelled("nc -l without a numeric port")
            raise _Stop
        yield from sh.timed(Listen(int(port), "tcp"))
        yield from sh.timed(Sleep(math.inf))
        return 0
    if len(pos) < 2 or verbose:
        yield Unmodelled("nc usage other than 'nc [-z] [-w N] HOST PORT'")
        raise _Stop
    host, port_s = pos[0], pos[1]
    if not port_s.isdigit():
        yield Unmodelled("nc port ranges or service names")
        raise _Stop
    res = yield from sh.timed(Connect(host, int(port_s), "nc", timeout))
    if not isinstance(res, ConnectResult):
        res = ConnectResult("refused", "127.0.0.1")
    if res.outcome == "bad_address":
        yield from sh.err(io, M.BUSYBOX_BAD_ADDRESS.format(applet="nc", host=host))
        return 1
    if zero:
        return 0 if res.outcome == "ok" else 1
    if res.outcome == "refused":
        yield from sh.err(io, M.BUSYBOX_CANT_CONNECT.format(applet="nc", ip=res.address, error="Connection refused"))
        return 1
    if res.outcome != "ok":
        yield Unmodelled(f"nc connect {res.outcome}")
        raise _Stop
    yield Unmodelled("nc data transfer")
    raise _Stop


def _c_httpd(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    port = 80
    args = argv[1:]
    fg = False
    for k, a in enumerate(args):
        if a == "-p" and k + 1 < len(args):
            p = args[k + 1].rsplit(":", 1)[-1]
            if p.isdigit():
                port = int(p)
        if "f" in a and a.startswith("-") and not a.startswith("--"):
            fg = True
    if not fg:
        return 0  # daemonizes and the shell goes on
    yield from sh.timed(Listen(port, "http"))
    yield from sh.timed(Sleep(math.inf))
    return 0


def _c_sh(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    args = argv[1:]
    opts_e = False
    while args and args[0].startswith("-") and args[0] not in ("-c", "-", "--") and not args[0].startswith("-c"):
        if "e" in args[0]:
            opts_e = True
        if "x" in args[0] or "s" in args[0] or "i" in args[0]:
            yield Unmodelled(f"sh {args[0]}")
            raise _Stop
        args = args[1:]
    if args and (args[0] == "-c" or (args[0].startswith("-") and args[0].endswith("c"))):
        if "e" in args[0]:
            opts_e = True
        if len(args) < 2:
            yield from sh.shell_err(io, "-c requires an argument")
            return 2
        script = args[1]
        arg0 = args[2] if len(args) > 2 else "sh"
        sub = _Shell(env=sh.vars, hostname=sh.hostname, arg0=arg0, args=args[3:], programs=sh.programs,
                     foreign=sh.foreign, fs=sh.fs)
        sub.errexit = opts_e
        sub.steps = sh.steps
        st = yield from _run_tree(sub, script, io)
        sh.steps = sub.steps
        return st
    if args and args[0] not in ("-", "--"):
        content = yield from sh.read_file(args[0])
        if content is None:
            yield from sh.write(io, 2, f"sh: can't open '{args[0]}': No such file or directory\n")
            return 2
        return (yield from sh.run_script_text(content, args[0], args[1:], io))
    # no script: an interactive-less shell reads stdin; with no stdin it exits at once
    src = io.stdin if isinstance(io.stdin, str) else ""
    if src:
        return (yield from sh.run_script_text(src, "sh", [], io))
    return 0


def _run_tree(sub: _Shell, script: str, io: _IO) -> Gen:
    try:
        tree = parse(script)
    except ShellSyntaxError as e:
        yield from sub.shell_err(io, str(e))
        return 2
    except _UnmodelledSyntax as e:
        yield Unmodelled(str(e))
        raise _Stop from None
    try:
        return (yield from sub.run_node(tree, io))
    except _ExitShell as e:
        return e.code
    except (_Break, _Continue):
        return 0


def _c_touch(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    for f in argv[1:]:
        if not f.startswith("-"):
            sh.fs.setdefault(f, "")
    return 0
    yield  # pragma: no cover


def _c_rm(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    force = any(a.startswith("-") and "f" in a for a in argv[1:])
    status = 0
    for f in argv[1:]:
        if f.startswith("-"):
            continue
        if f in sh.fs:
            del sh.fs[f]
        elif not force:
            yield from sh.err(io, f"rm: can't remove '{f}': No such file or directory")
            status = 1
    return status


def _c_mkdir(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    return 0
    yield  # pragma: no cover


def _c_uname(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    if len(argv) > 1 and argv[1] not in ("-s", "-m"):
        yield Unmodelled(f"uname {argv[1]}")
        raise _Stop
    yield from sh.write(io, 1, ("x86_64" if argv[1:] == ["-m"] else "Linux") + "\n")
    return 0


def _c_seq(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    nums = argv[1:]
    try:
        vals = [int(x) for x in nums]
    except ValueError:
        yield Unmodelled("seq with options or decimals")
        raise _Stop from None
    if len(vals) == 1:
        lo, step, hi = 1, 1, vals[0]
    elif len(vals) == 2:
        lo, step, hi = vals[0], 1, vals[1]
    elif len(vals) == 3:
        lo, step, hi = vals
    else:
        return 1
    if step == 0:
        return 1
    out = [str(v) for v in range(lo, hi + (1 if step > 0 else -1), step)]
    yield from sh.write(io, 1, "".join(x + "\n" for x in out))
    return 0


def _c_grep(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    flags: set[str] = set()
    rest: list[str] = []
    for a in argv[1:]:
        if a.startswith("-") and len(a) > 1 and not rest:
            flags.update(a[1:])
        else:
            rest.append(a)
    if not rest or len(rest) > 2 or flags - set("qvicF"):
        yield Unmodelled("grep beyond fixed-string matching of stdin or one file")
        raise _Stop
    pattern = rest[0]
    if "F" not in flags and re.search(r"[.*^$\[\]\\+?(){}|]", pattern):
        yield Unmodelled("grep with a regular expression")
        raise _Stop
    if len(rest) == 2:
        content = yield from sh.read_file(rest[1])
        if content is None:
            yield from sh.err(io, f"grep: {rest[1]}: No such file or directory")
            return 2
    else:
        content = io.stdin if isinstance(io.stdin, str) else ""
    lines = (content or "").splitlines(keepends=True)
    def hit(line: str) -> bool:
        ok = pattern.lower() in line.lower() if "i" in flags else pattern in line
        return ok != ("v" in flags)
    matched = [ln if ln.endswith("\n") else ln + "\n" for ln in lines if hit(ln)]
    if "c" in flags:
        yield from sh.write(io, 1, f"{len(matched)}\n")
    elif "q" not in flags:
        yield from sh.write(io, 1, "".join(matched))
    return 0 if matched else 1


def _c_dd(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    opts = dict(a.split("=", 1) for a in argv[1:] if "=" in a)
    bs = _parse_size(opts.get("bs", "512"))
    count = opts.get("count")
    src, dst = opts.get("if", "-"), opts.get("of", "-")
    if bs is None or src != "/dev/zero" or count is None or not count.isdigit():
        yield Unmodelled("dd other than if=/dev/zero bs=N count=N")
        raise _Stop
    total = bs * int(count)
    yield Allocate(bs)  # dd's block buffer
    if dst.startswith("/dev/shm/"):
        yield Allocate(total)  # tmpfs pages are charged to the container's memory cgroup
    elif dst == "-":
        yield from _emit_zero(sh, io, total)
    elif dst != "/dev/null":
        sh.fs[dst] = ""
    yield Release(bs)
    if opts.get("status") != "none":
        yield Unmodelled("dd transfer statistics (timing-dependent output)")
        raise _Stop
    return 0


def _c_kill(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    yield Unmodelled("kill")
    raise _Stop


def _c_nginx(sh: _Shell, argv: list[str], io: _IO) -> Gen:
    yield Unmodelled("nginx run from a shell")
    raise _Stop


_COMMANDS = {
    "sleep": _c_sleep, "true": _c_true, "false": _c_false, "exit": _c_exit, "echo": _c_echo,
    "printf": _c_printf, ":": _c_colon, "export": _c_export, "unset": _c_unset, "set": _c_set,
    "break": _c_break, "continue": _c_continue, "trap": _c_trap, "wait": _c_wait, "cd": _c_cd,
    "pwd": _c_pwd, "shift": _c_shift, "hostname": _c_hostname, "whoami": _c_whoami, "id": _c_id,
    "env": _c_env, "printenv": _c_env, "date": _c_date, "cat": _c_cat, "head": _c_head, "tail": _c_tail,
    "wc": _c_wc, "yes": _c_yes, "test": _c_test, "[": _c_test, "wget": _c_wget, "nc": _c_nc,
    "httpd": _c_httpd, "sh": _c_sh, "ash": _c_sh, "touch": _c_touch, "rm": _c_rm, "mkdir": _c_mkdir,
    "uname": _c_uname, "seq": _c_seq, "grep": _c_grep, "dd": _c_dd, "kill": _c_kill,
    "readonly": _c_export, "local": _c_export,
}
_SHELL_BUILTINS = frozenset({"exit", ":", "export", "unset", "set", "break", "continue", "trap", "wait",
                             "cd", "pwd", "shift", "readonly", "local", "echo", "printf", "test", "[",
                             "true", "false", "kill"})
_SPECIAL_BUILTINS = frozenset({"export", "set", "unset", ":", "exit", "readonly", "break", "continue",
                               "trap", "shift"})
#: applets of a busybox/alpine image that the model interprets
MODELLED_APPLETS = frozenset(set(_COMMANDS) - _SHELL_BUILTINS)
#: every program of the busybox:1.36 image (modelled or not)
BUSYBOX_IMAGE_PROGRAMS = MODELLED_APPLETS | BUSYBOX_APPLETS


# --------------------------------------------------------------------------------------- entry points
def kube_expand(value: str, env: Mapping[str, str]) -> str:
    """The kubelet's ``$(VAR)`` expansion of command/args (``$$`` escapes; unknown refs stay literal).

    Mirrors third_party/forked/golang/expansion/expand.go (used by pkg/kubelet/container/helpers.go
    ExpandContainerCommandAndArgs).
    """
    out: list[str] = []
    i, n = 0, len(value)
    while i < n:
        c = value[i]
        if c == "$" and i + 1 < n:
            nxt = value[i + 1]
            if nxt == "$":
                out.append("$")
                i += 2
                continue
            if nxt == "(":
                j = value.find(")", i + 2)
                if j >= 0:
                    name = value[i + 2 : j]
                    out.append(env[name] if name in env else value[i : j + 1])
                    i = j + 1
                    continue
            out.append("$" + nxt)
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _driver(sh: _Shell, body: Gen) -> Program:
    try:
        code = yield from body
    except _ExitShell as e:
        code = e.code
    except (_Break, _Continue):
        code = 0
    except _Stop:
        return
    yield Exit(code & 0xFF)


def run_script(script: str, *, env: Mapping[str, str] | None = None, hostname: str = "localhost",
               programs: frozenset[str] = BUSYBOX_IMAGE_PROGRAMS, foreign: frozenset[str] = frozenset(),
               args: list[str] | None = None, arg0: str = "sh", fs: dict[str, str] | None = None) -> Program:
    """Interpret ``sh -c SCRIPT`` (what ``command: ["sh", "-c", SCRIPT]`` runs).

    ``fs`` is the container's writable file layer (path -> content), shared with exec probes.
    """
    sh = _Shell(env=env or {}, hostname=hostname, arg0=arg0, args=args or [], programs=programs,
                foreign=foreign, fs=fs)
    io = _IO({1: _STDOUT, 2: _STDERR}, None)
    return _driver(sh, _run_tree(sh, script, io))


def run_argv(argv: list[str], *, env: Mapping[str, str] | None = None, hostname: str = "localhost",
             programs: frozenset[str] = BUSYBOX_IMAGE_PROGRAMS, foreign: frozenset[str] = frozenset(),
             fs: dict[str, str] | None = None) -> Program:
    """Interpret a container's final argv (entrypoint/command + args, already ``$(VAR)``-expanded).

    The first element is exec'd directly (no shell), as the container runtime does. The caller is
    expected to have checked that argv[0] exists in the image (see ``images.resolve_program``); an
    unknown program here is reported as Unmodelled.
    """
    sh = _Shell(env=env or {}, hostname=hostname, arg0=argv[0] if argv else "sh", args=[],
                programs=programs, foreign=foreign, fs=fs)
    io = _IO({1: _STDOUT, 2: _STDERR}, None)

    def body() -> Gen:
        if not argv:
            return 0
        name = argv[0].rsplit("/", 1)[-1] if any(argv[0].startswith(d) for d in _BIN_DIRS) else argv[0]
        fn = _COMMANDS.get(name)
        if fn is None or (name not in programs) or name in _SHELL_BUILTINS - {"echo", "printf", "test", "[",
                                                                                 "true", "false", "kill"}:
            yield Unmodelled(f"program '{argv[0]}' cannot be interpreted by the busybox model")
            raise _Stop
        return (yield from fn(sh, [name, *argv[1:]], io))

    return _driver(sh, body())


def run_to_end(program: Program, *, now: float = 0.0,
               connect: object = None, files: Mapping[str, str] | None = None,
               limit_actions: int = 100000) -> tuple[list[Action], float]:
    """Drive a program to its end for tests and exec probes: sleeps advance a local clock.

    ``connect`` is a callable ``(Connect) -> ConnectResult`` (default: everything refused).
    Returns the actions seen (Sleep/Now/... included) and the final virtual time.
    """
    seen: list[Action] = []
    t = now
    send: object = None
    for _ in range(limit_actions):
        try:
            act = program.send(send)
        except StopIteration:
            break
        seen.append(act)
        send = None
        if isinstance(act, Sleep):
            if math.isinf(act.seconds):
                break
            t += act.seconds
        elif isinstance(act, Now):
            send = t
        elif isinstance(act, Connect):
            send = connect(act) if callable(connect) else ConnectResult("refused", "127.0.0.1")
            if isinstance(send, ConnectResult) and send.outcome == "timeout" and act.timeout:
                t += act.timeout
        elif isinstance(act, ReadFile):
            send = (files or {}).get(act.path)
        elif isinstance(act, Exit | Busy | Unmodelled):
            break
    return seen, t
