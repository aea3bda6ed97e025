#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the syzkaller description of posixtrace against its uapi header.

    selftests/syzkaller/check.py [--write-const] [--txt FILE] [--const FILE]

syzkaller (syz-extract, syz-sysgen) needs Go and cannot run here, so this
script does what matters of their work for this one file, with gcc:

  - it parses the part of syzlang that posixtrace.txt uses, and refuses
    anything else, rather than skip what it does not understand;
  - it runs a C program, built against include/uapi, that prints the value
    of every const the description names, and compares them with
    posixtrace.txt.const (or writes that file, with --write-const);
  - it lays every syzlang struct out as syzkaller does (natural alignment)
    and compiles a C program of _Static_asserts: every field is the C
    member of the same name, at the same offset, of the same size, and
    the structs are as large; every ioctl passes the struct of its command
    number, in the command's direction, on the right descriptor; every
    struct and command of the header is described (or said why not).

Exits 0 and prints one summary line when all holds; otherwise prints what
is wrong, naming the struct, field, call or const, and exits 1.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
UAPI_DIR = os.path.join(TOP, "include", "uapi")
HEADER = os.path.join(UAPI_DIR, "linux", "posixtrace.h")
DEFAULT_TXT = os.path.join(HERE, "posixtrace.txt")
DEFAULT_CONST = DEFAULT_TXT + ".const"

# The only arch whose values we can compute here: this machine's. Sizes of
# intptr and ptr, and the page lengths in posixtrace.txt, are amd64's.
ARCH = "amd64"
POINTER_SIZE = 8

# The one table that ties the header to the description: every struct of
# the header (grep '^struct posixtrace_'), with the syzlang structs that lay
# it out, or why none does. A struct that is an ioctl argument must have
# one; a struct added to the header fails the check until it is listed here.
STRUCT_MAP = {
    "posixtrace_version": ["posixtrace_version"],
    "posixtrace_eventset": ["posixtrace_eventset"],
    "posixtrace_attr": ["posixtrace_attr"],
    "posixtrace_create": ["posixtrace_create"],
    "posixtrace_eventid": ["posixtrace_eventid"],
    "posixtrace_event": ["posixtrace_event"],
    "posixtrace_getnext": ["posixtrace_getnext"],
    "posixtrace_status": ["posixtrace_status"],
    "posixtrace_eventtype": ["posixtrace_eventtype"],
    "posixtrace_syscalls": ["posixtrace_syscalls"],
    # Two syzlang structs: SET_FILTER's set is input, GET_FILTER's output.
    "posixtrace_filter": ["posixtrace_filter_set", "posixtrace_filter_get"],
    "posixtrace_ring_ctl": ["posixtrace_ring_ctl"],
    "posixtrace_ring_record": ["posixtrace_ring_record"],
    "posixtrace_record":
        "GETNEXT's output records, in a byte buffer: syzkaller reads nothing"
        " back, and no call takes one in",
    "posixtrace_enable_page":
        "mapped read-only (mmap$posixtrace_enable): nothing a program"
        " writes, so nothing to fuzz",
}

# Bit flags of the header ((1U << n)) that are no argument's flags, so that
# every other one must be in a flag set of the description.
BITS_NOT_ARGUMENTS = {
    "POSIXTRACE_SYSCALL_CUT_PATH": "in the data of a syscall entry event",
    "POSIXTRACE_SYSCALL_CUT_PATH2": "in the data of a syscall entry event",
    "POSIXTRACE_SYSCALL_CUT_ADDR": "in the data of a syscall entry event",
}

# Names the description takes from syzkaller's own sys/linux/sys.txt.
SYZKALLER_RESOURCES = {"fd": "int32", "pid": "int32"}
SYZKALLER_FLAGS = {"open_flags", "mmap_prot", "mmap_flags"}

# The header numbers device commands from 0x00 and stream commands from
# 0x10: the rule that says which descriptor an ioctl$ must take.
FIRST_STREAM_COMMAND_NR = 0x10

INT_SIZES = {"int8": 1, "int16": 2, "int32": 4, "int64": 8,
             "intptr": POINTER_SIZE}
LEN_TYPES = {"len", "bytesize", "bytesize2", "bytesize4", "bytesize8",
             "bitsize"}
DIRECTIONS = {"in", "out", "inout"}
# The calls this script knows, with their arguments' names as syzkaller's
# sys/linux spells them (ioctl's are checked on their own).
CALL_ARGUMENTS = {
    "openat": ["fd", "file", "flags", "mode"],
    "ioctl": None,
    "mmap": ["addr", "len", "prot", "flags", "fd", "offset"],
    "syz_memcpy_off": ["dst", "off", "src", "src_off", "nbytes"],
}
KNOWN_CALLS = set(CALL_ARGUMENTS)


class DescriptionError(Exception):
    """Something in the description this script refuses."""


# ---------------------------------------------------------------- parsing

@dataclass
class Type:
    """A syzlang type expression: name[args], where an arg may be a:b."""
    name: str
    args: list = field(default_factory=list)
    colon: "Type | None" = None     # the b of a range a:b
    line: int = 0

    def is_number(self):
        return re.fullmatch(r"-?(0x[0-9a-fA-F]+|\d+)", self.name) is not None

    def is_string(self):
        return self.name.startswith('"')

    def is_ident(self):
        return re.fullmatch(r"[A-Za-z_]\w*", self.name) is not None

    def __str__(self):
        s = self.name
        if self.args:
            s += "[" + ", ".join(str(a) for a in self.args) + "]"
        if self.colon:
            s += ":" + str(self.colon)
        return s


@dataclass
class Field:
    name: str
    type: Type
    direction: "str | None"         # (in), (out) or (inout), if given
    line: int


@dataclass
class Struct:
    name: str
    fields: list
    is_union: bool
    varlen: bool
    line: int


@dataclass
class Call:
    base: str                       # ioctl, mmap...
    name: str                       # ioctl$POSIXTRACE_IOC_VERSION
    args: list                      # of Field (direction unused)
    ret: "Type | None"
    line: int


@dataclass
class Description:
    includes: list = field(default_factory=list)
    defines: dict = field(default_factory=dict)     # name -> C expression
    resources: dict = field(default_factory=dict)   # name -> (base, specials)
    int_flags: dict = field(default_factory=dict)   # name -> [Type]
    str_flags: dict = field(default_factory=dict)   # name -> [str]
    structs: dict = field(default_factory=dict)     # name -> Struct
    calls: list = field(default_factory=list)
    line_of: dict = field(default_factory=dict)     # declared name -> line


TOKEN = re.compile(r'\s*(?:(?P<str>"[^"]*")|(?P<num>-?0x[0-9a-fA-F]+|-?\d+)'
                   r'|(?P<id>[A-Za-z_]\w*)|(?P<punct>[\[\],:]))')


def tokenize(text, line):
    tokens, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            why = " (comments go on a line of their own)" if "#" in text else ""
            raise DescriptionError(f"line {line}: cannot read {text[pos:]!r}{why}")
        tokens.append(m.group(m.lastgroup))
        pos = m.end()
    return tokens


def parse_type(text, line):
    """Parses one whole type expression, e.g. ptr64[in, array[int8, 4]]."""
    tokens = tokenize(text, line)

    def parse_at(i):
        if i >= len(tokens) or tokens[i] in "[],:":
            raise DescriptionError(f"line {line}: expected a type in {text!r}")
        t = Type(tokens[i], line=line)
        i += 1
        if i < len(tokens) and tokens[i] == "[":
            i += 1
            while True:
                arg, i = parse_at(i)
                if i < len(tokens) and tokens[i] == ":":
                    arg.colon, i = parse_at(i + 1)
                t.args.append(arg)
                if i < len(tokens) and tokens[i] == ",":
                    i += 1
                    continue
                if i < len(tokens) and tokens[i] == "]":
                    i += 1
                    break
                raise DescriptionError(f"line {line}: unclosed '[' in {text!r}")
        return t, i

    t, end = parse_at(0)
    if end != len(tokens):
        raise DescriptionError(f"line {line}: trailing {tokens[end:]} in {text!r}")
    return t


def split_top_level(text, sep=","):
    """Splits at separators outside brackets and quotes."""
    parts, depth, quoted, cur = [], 0, False, ""
    for ch in text:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch == "[":
            depth += 1
        elif not quoted and ch == "]":
            depth -= 1
        if ch == sep and depth == 0 and not quoted:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


FIELD_LINE = re.compile(r"\t(\w+)\s+(.+?)(?:\s+\((\w+)\))?")
CALL_LINE = re.compile(r"(\w+)\$(\w+)\((.*)\)(?:\s+(\w+))?")
# syz-sysgen refuses a comment that reads as a directive.
CONFUSING_COMMENT = re.compile(r"#\s*(include|incdir|define)")


def declare(desc, name, line):
    if name in desc.line_of:
        raise DescriptionError(f"line {line}: {name} already declared at line"
                               f" {desc.line_of[name]}")
    desc.line_of[name] = line


def parse_description(text):
    desc = Description()
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line, n = lines[i].rstrip(), i + 1
        i += 1
        if not line:
            continue
        if line.startswith("#"):
            if CONFUSING_COMMENT.match(line):
                raise DescriptionError(f"line {n}: syz-sysgen refuses a comment"
                                       f" that reads as a directive: {line!r}")
            continue
        if line[0].isspace():
            raise DescriptionError(f"line {n}: indented line outside a struct")
        m = re.fullmatch(r"include <([\w./-]+)>", line)
        if m:
            desc.includes.append(m.group(1))
            continue
        m = re.fullmatch(r"define\s+(\w+)\s+([\w\s+\-*/(),]+)", line)
        if m:
            declare(desc, m.group(1), n)
            desc.defines[m.group(1)] = m.group(2).strip()
            continue
        m = re.fullmatch(r"resource\s+(\w+)\[(\w+)\](?:\s*:\s*(.+))?", line)
        if m:
            declare(desc, m.group(1), n)
            specials = [parse_type(v, n) for v in split_top_level(m.group(3) or "")]
            desc.resources[m.group(1)] = (m.group(2), specials)
            continue
        m = re.fullmatch(r"(\w+)\s*=\s*(.+)", line)
        if m:
            declare(desc, m.group(1), n)
            values = split_top_level(m.group(2))
            if all(v.startswith('"') for v in values):
                for v in values:
                    if not re.fullmatch(r'"[^"]*"', v):
                        raise DescriptionError(f"line {n}: bad string {v!r}")
                desc.str_flags[m.group(1)] = [v[1:-1] for v in values]
            else:
                flags = [parse_type(v, n) for v in values]
                for f in flags:
                    if f.args or f.colon or not (f.is_number() or f.is_ident()):
                        raise DescriptionError(f"line {n}: bad flag value {f}")
                desc.int_flags[m.group(1)] = flags
            continue
        m = re.fullmatch(r"(\w+)\s*([{\[])", line)
        if m:
            i = parse_struct_body(desc, m.group(1), m.group(2) == "[", lines, i, n)
            continue
        m = CALL_LINE.fullmatch(line)
        if m:
            desc.calls.append(parse_call(m, n))
            continue
        raise DescriptionError(f"line {n}: do not understand {line!r}")
    return desc


def parse_struct_body(desc, name, is_union, lines, i, start):
    """Reads the fields of a struct ({...}) or union ([...]); returns the
    index of the line after it."""
    declare(desc, name, start)
    close = "]" if is_union else "}"
    fields = []
    while i < len(lines):
        line, n = lines[i].rstrip(), i + 1
        i += 1
        if line.startswith(close):
            attrs = line[1:].strip()
            # syzkaller's struct attributes (packed, align, size) change the
            # layout, which this script does not model: refuse them.
            if attrs not in ("", "[varlen]") or (attrs and not is_union):
                raise DescriptionError(f"line {n}: attributes {attrs!r} of {name}"
                                       " are not supported here")
            if not fields:
                raise DescriptionError(f"line {start}: {name} has no fields")
            desc.structs[name] = Struct(name, fields, is_union,
                                        attrs == "[varlen]", start)
            return i
        if line.lstrip().startswith("#") or not line:
            continue
        m = FIELD_LINE.fullmatch(line)
        if not m:
            raise DescriptionError(f"line {n}: do not understand field {line!r}")
        direction = m.group(3)
        if direction is not None and direction not in DIRECTIONS:
            raise DescriptionError(f"line {n}: field attribute ({direction})"
                                   " is not supported here")
        if any(f.name == m.group(1) for f in fields):
            raise DescriptionError(f"line {n}: duplicate field {m.group(1)}")
        fields.append(Field(m.group(1), parse_type(m.group(2), n), direction, n))
    raise DescriptionError(f"line {start}: {name} is not closed")


def parse_call(m, n):
    base, variant, args_text, ret = m.groups()
    if base not in KNOWN_CALLS:
        raise DescriptionError(f"line {n}: call {base}${variant} is not one this"
                               f" script knows ({', '.join(sorted(KNOWN_CALLS))})")
    args = []
    for arg in split_top_level(args_text):
        am = re.fullmatch(r"(\w+)\s+(.+)", arg)
        if not am:
            raise DescriptionError(f"line {n}: bad argument {arg!r}")
        args.append(Field(am.group(1), parse_type(am.group(2), n), None, n))
    return Call(base, f"{base}${variant}", args,
                parse_type(ret, n) if ret else None, n)


# ------------------------------------------------------ checking the types

class TypeChecker:
    """Knows what each syzlang type means in a struct, behind a pointer, or
    as an argument; collects the consts they name; lays structs out."""

    def __init__(self, desc):
        self.desc = desc
        self.consts = set()         # const names the description uses
        self.used = set()           # declared names reached from a call
        self.values = None          # const name -> value, once computed

    def const_ref(self, t, where):
        """A value: a number, or a const name for the .const file."""
        if t.args or t.colon:
            raise DescriptionError(f"line {t.line}: {where}: expected a value, got {t}")
        if t.is_number():
            return
        if not t.is_ident():
            raise DescriptionError(f"line {t.line}: {where}: expected a value, got {t}")
        self.consts.add(t.name)

    def value(self, t):
        if t.is_number():
            return int(t.name, 0)
        return self.values[t.name]

    def int_base(self, t, where):
        if t.name not in INT_SIZES or t.args:
            raise DescriptionError(f"line {t.line}: {where}: expected int8..int64,"
                                   f" got {t}")

    def resource_base(self, name):
        while name in self.desc.resources:
            self.used.add(name)
            name = self.desc.resources[name][0]
        if name in SYZKALLER_RESOURCES:
            return SYZKALLER_RESOURCES[name]
        return name if name in INT_SIZES else None

    def check(self, t, where, context, siblings=()):
        """context: "field" (inside a struct: fixed size, ints need their
        base), "pointee" (behind a pointer: may be of variable size), or
        "arg" (a call's argument)."""
        name, args = t.name, t.args
        if t.colon:
            raise DescriptionError(f"line {t.line}: {where}: unexpected ':' in {t}")
        if name in INT_SIZES:
            self.check_int_args(t, where)
        elif name == "const":
            if not 1 <= len(args) <= 2 or (context != "arg" and len(args) != 2):
                raise DescriptionError(f"line {t.line}: {where}: const[value, intN]"
                                       f" expected, got {t}")
            self.const_ref(args[0], where)
            if len(args) == 2:
                self.int_base(args[1], where)
        elif name == "flags":
            if not 1 <= len(args) <= 2 or (context != "arg" and len(args) != 2):
                raise DescriptionError(f"line {t.line}: {where}: flags[set, intN]"
                                       f" expected, got {t}")
            set_name = args[0].name
            if set_name in self.desc.int_flags:
                self.used.add(set_name)
            elif set_name not in SYZKALLER_FLAGS:
                raise DescriptionError(f"line {t.line}: {where}: no flag set {set_name}")
            if len(args) == 2:
                self.int_base(args[1], where)
        elif name in LEN_TYPES:
            if not 1 <= len(args) <= 2 or (context != "arg" and len(args) != 2):
                raise DescriptionError(f"line {t.line}: {where}: {name}[target, intN]"
                                       f" expected, got {t}")
            target = args[0].name
            if target != "parent" and target not in siblings:
                raise DescriptionError(f"line {t.line}: {where}: {name} of {target},"
                                       " which is neither parent nor a sibling")
            if len(args) == 2:
                self.int_base(args[1], where)
        elif name in ("ptr", "ptr64"):
            if len(args) not in (2, 3) or args[0].name not in DIRECTIONS or \
                    (len(args) == 3 and args[2].name != "opt"):
                raise DescriptionError(f"line {t.line}: {where}: {name}[in|out|inout,"
                                       f" type(, opt)] expected, got {t}")
            self.check(args[1], where, "pointee")
        elif name == "array":
            if len(args) not in (1, 2):
                raise DescriptionError(f"line {t.line}: {where}: bad {t}")
            self.check(args[0], where, "field")
            if len(args) == 2 and args[1].colon is None:
                self.const_ref(args[1], where)
            elif context != "pointee":
                raise DescriptionError(f"line {t.line}: {where}: an array of variable"
                                       " length is only allowed behind a pointer")
        elif name == "string":
            self.check_string(t, where, context)
        elif name in ("vma", "vma64"):
            if context != "arg" or len(args) > 1:
                raise DescriptionError(f"line {t.line}: {where}: bad {t}")
            for a in args:
                self.const_ref(Type(a.name, line=a.line), where)
                if a.colon:
                    self.const_ref(a.colon, where)
        elif self.resource_base(name):
            if args and [a.name for a in args] != ["opt"]:
                raise DescriptionError(f"line {t.line}: {where}: resource {name}"
                                       " takes no arguments but opt")
        elif name in self.desc.structs:
            if args:
                raise DescriptionError(f"line {t.line}: {where}: {name} takes no"
                                       " arguments")
            st = self.desc.structs[name]
            if st.varlen and context != "pointee":
                raise DescriptionError(f"line {t.line}: {where}: varlen {name}"
                                       " only behind a pointer")
            if name not in self.used:
                self.used.add(name)
                self.check_struct(st)
        else:
            raise DescriptionError(f"line {t.line}: {where}: unknown type {t}")

    def check_int_args(self, t, where):
        """int32, int32[a:b], int32[a:b, align], int32[flags] or int32[v]."""
        if len(t.args) > 2 or (len(t.args) == 2 and t.args[0].colon is None):
            raise DescriptionError(f"line {t.line}: {where}: bad {t}")
        if not t.args:
            return
        first = t.args[0]
        if first.colon is None and first.name in self.desc.int_flags:
            self.used.add(first.name)
            return
        self.const_ref(Type(first.name, line=first.line), where)
        if first.colon:
            self.const_ref(first.colon, where)
        if len(t.args) == 2:
            self.const_ref(t.args[1], where)

    def check_string(self, t, where, context):
        args = t.args
        if len(args) > 2:
            raise DescriptionError(f"line {t.line}: {where}: bad {t}")
        if args and not args[0].is_string():
            if args[0].name not in self.desc.str_flags:
                raise DescriptionError(f"line {t.line}: {where}: no string flag set"
                                       f" {args[0].name}")
            self.used.add(args[0].name)
        if len(args) == 2:
            self.const_ref(args[1], where)
        elif context != "pointee":
            raise DescriptionError(f"line {t.line}: {where}: a string without a size"
                                   " is only allowed behind a pointer")

    def check_struct(self, st):
        siblings = [f.name for f in st.fields]
        for f in st.fields:
            self.check(f.type, f"{st.name}.{f.name}", "field", siblings)
            # The header's conventions, which a description must keep.
            if re.fullmatch(r"__reserved\d*", f.name) and not (
                    f.type.name == "const" and f.type.args[0].name == "0"):
                raise DescriptionError(f"line {f.line}: {st.name}.{f.name}: reserved"
                                       " members must be zero: const[0, intN]")
            if f.name.endswith("_fd") and not self.is_fd(f.type.name):
                raise DescriptionError(f"line {f.line}: {st.name}.{f.name}: a file"
                                       " descriptor: use fd or a resource of fd")

    def is_fd(self, name):
        while name in self.desc.resources:
            name = self.desc.resources[name][0]
        return name == "fd"

    # -- layout, once the values of the consts are known

    def layout(self, t):
        """(size, alignment) of a type in a struct, as syzkaller lays it
        out on amd64; None for a type of variable size."""
        name = t.name
        if name in INT_SIZES:
            return INT_SIZES[name], INT_SIZES[name]
        if name in ("const", "flags") or name in LEN_TYPES:
            size = INT_SIZES[t.args[1].name]
            return size, size
        if name == "ptr":
            return POINTER_SIZE, POINTER_SIZE
        if name == "ptr64":
            return 8, 8
        if name == "array":
            if len(t.args) < 2 or t.args[1].colon:
                return None
            size, align = self.layout(t.args[0])
            return size * self.value(t.args[1]), align
        if name == "string":
            return (self.value(t.args[1]), 1) if len(t.args) == 2 else None
        base = self.resource_base(name)
        if base:
            return INT_SIZES[base], INT_SIZES[base]
        st = self.desc.structs[name]
        return self.struct_layout(st)[0:2]

    def struct_layout(self, st):
        """(size, alignment, [(field, offset, size)], [implicit padding])."""
        offset, align, placed, padding = 0, 1, [], []
        for f in st.fields:
            size, falign = self.layout(f.type)
            align = max(align, falign)
            if st.is_union:
                placed.append((f, 0, size))
                offset = max(offset, size)
                continue
            if offset % falign:
                pad = falign - offset % falign
                padding.append(f"{pad} bytes before {f.name}")
                offset += pad
            placed.append((f, offset, size))
            offset += size
        if offset % align:
            padding.append(f"{align - offset % align} bytes at the end")
            offset += align - offset % align
        return offset, align, placed, padding


# ------------------------------------------------------ checking the calls

def check_calls(desc, checker):
    """Validates every call's arguments; returns the ioctls, mmaps and ring
    writes, and the device path of openat$."""
    ioctls, mmaps, ring_writes, paths = [], [], [], []
    for call in desc.calls:
        names = [a.name for a in call.args]
        for a in call.args:
            checker.check(a.type, f"{call.name}({a.name})", "arg", names)
        if call.ret is not None and not checker.resource_base(call.ret.name):
            raise DescriptionError(f"line {call.line}: {call.name} returns {call.ret},"
                                   " not a resource")
        if call.base == "ioctl":
            ioctls.append(check_ioctl_shape(call))
        elif names != CALL_ARGUMENTS[call.base]:
            raise DescriptionError(f"line {call.line}: {call.name}: arguments"
                                   f" {names}, expected {CALL_ARGUMENTS[call.base]}")
        elif call.base == "openat":
            file = call.args[1].type
            if file.name != "ptr" or file.args[1].name != "string" or \
                    not file.args[1].args or not file.args[1].args[0].is_string():
                raise DescriptionError(f"line {call.line}: {call.name}: the file must"
                                       ' be ptr[in, string["/dev/..."]]')
            paths.append((call, file.args[1].args[0].name))
        elif call.base == "mmap":
            mmaps.append(call)
        else:
            ring_writes.append(call)
    return ioctls, mmaps, ring_writes, paths


@dataclass
class Ioctl:
    call: Call
    fd: str
    cmd: str
    direction: "str | None"         # of the pointer; None without argument
    struct: "str | None"            # the syzlang struct it points to


def check_ioctl_shape(call):
    """ioctl$CMD(fd resource, cmd const[CMD]) or (..., arg ptr[dir, S])."""
    args = call.args
    if [a.name for a in args][:2] != ["fd", "cmd"] or len(args) not in (2, 3):
        raise DescriptionError(f"line {call.line}: {call.name}: expected (fd, cmd"
                               "[, arg])")
    cmd = args[1].type
    if cmd.name != "const" or len(cmd.args) != 1 or not cmd.args[0].is_ident():
        raise DescriptionError(f"line {call.line}: {call.name}: cmd must be"
                               " const[COMMAND]")
    if call.name != "ioctl$" + cmd.args[0].name:
        raise DescriptionError(f"line {call.line}: {call.name}: name it after its"
                               f" command, ioctl${cmd.args[0].name}")
    if len(args) == 2:
        return Ioctl(call, args[0].type.name, cmd.args[0].name, None, None)
    arg = args[2].type
    if arg.name != "ptr" or len(arg.args) != 2:
        raise DescriptionError(f"line {call.line}: {call.name}: the argument must"
                               " be ptr[dir, struct]")
    return Ioctl(call, args[0].type.name, cmd.args[0].name, arg.args[0].name,
                 arg.args[1].name)


@dataclass
class CallResources:
    """The resources a call makes and takes, as syzkaller's prog package
    counts them (optional types and unions create nothing)."""
    creates: set = field(default_factory=set)   # kinds: a resource and its bases
    needs: set = field(default_factory=set)     # inputs that must exist
    takes: set = field(default_factory=set)     # inputs, optional or not


def is_optional(t):
    return (t.name in ("ptr", "ptr64") and len(t.args) == 3) or \
        any(a.name == "opt" for a in t.args if t.name not in ("ptr", "ptr64"))


def resource_kinds(desc, name):
    kinds = []
    while name in desc.resources:
        kinds.append(name)
        name = desc.resources[name][0]
    if name in SYZKALLER_RESOURCES:
        kinds.append(name)
    return kinds


def call_resources(desc, call):
    res = CallResources()

    def walk(t, direction, optional, in_union, seen):
        optional = optional or is_optional(t)
        if t.name in desc.resources or t.name in SYZKALLER_RESOURCES:
            if direction != "in" and not optional and not in_union:
                res.creates.update(resource_kinds(desc, t.name))
            if direction != "out":
                res.takes.add(t.name)
                if not optional:
                    res.needs.add(t.name)
        elif t.name in ("ptr", "ptr64"):
            walk(t.args[1], t.args[0].name, optional, in_union, seen)
        elif t.name == "array":
            walk(t.args[0], direction, optional, in_union, seen)
        elif t.name in desc.structs and (t.name, direction) not in seen:
            seen.add((t.name, direction))
            st = desc.structs[t.name]
            for f in st.fields:
                walk(f.type, f.direction or direction, optional,
                     in_union or st.is_union, seen)

    for a in call.args:
        walk(a.type, "in", False, False, set())
    if call.ret is not None:
        walk(call.ret, "out", False, False, set())
    return res


def check_resources_and_use(desc, checker, resources):
    """What syz-sysgen refuses: a resource no call creates or none takes,
    and a declaration nothing uses."""
    created = set().union(*(r.creates for r in resources.values()))
    taken = set().union(*(r.takes for r in resources.values()))
    for name in desc.resources:
        if name not in created:
            raise DescriptionError(f"resource {name} can't be created (no call returns"
                                   " it or writes it, but optionally)")
        if not set(k for k in taken if name in resource_kinds(desc, k)):
            raise DescriptionError(f"resource {name} is never used as an input")
    declared = set(desc.resources) | set(desc.int_flags) | set(desc.str_flags) | \
        set(desc.structs)
    for name in sorted(declared - checker.used):
        raise DescriptionError(f"line {desc.line_of[name]}: unused {name}")


def check_enabled_alone(desc, resources):
    """syzkaller disables a call when no enabled call can create one of the
    resources it needs (prog.TransitivelyEnabledCalls). With only this
    file's calls enabled, as README.rst says, every call must stay."""
    supported, can_create = set(), set()
    while True:
        added = [c for c in desc.calls if c.name not in supported and
                 resources[c.name].needs <= can_create]
        if not added:
            break
        for c in added:
            supported.add(c.name)
            can_create |= resources[c.name].creates
    return [f"{c.name}: disabled when only posixtrace's calls are enabled: nothing"
            f" creates {', '.join(sorted(resources[c.name].needs - can_create))}"
            for c in desc.calls if c.name not in supported]


# ------------------------------------------------------------ the header

def read_header():
    with open(HEADER) as f:
        text = f.read()
    return text.replace("\\\n", " ")            # join continued macros


def header_structs(header):
    return re.findall(r"^struct (posixtrace_\w+) \{", header, re.M)


def header_ioctls(header):
    """COMMAND -> the struct its number names (None for _IO)."""
    commands = {}
    for m in re.finditer(r"^#define\s+(POSIXTRACE_IOC_\w+)\s+(.*)$", header, re.M):
        name, body = m.groups()
        if name == "POSIXTRACE_IOC_MAGIC":
            continue
        im = re.fullmatch(r"_IO(?:R|W|WR)?\(POSIXTRACE_IOC_MAGIC,\s*0x[0-9a-fA-F]+"
                          r"(?:,\s*struct\s+(\w+))?\)\s*", body)
        if not im:
            raise DescriptionError(f"header: cannot read the command {name}: {body!r}")
        commands[name] = im.group(1)
    return commands


def header_bit_flags(header):
    return re.findall(r"^#define\s+(POSIXTRACE_\w+)\s+\(1U << \d+\)", header, re.M)


def header_size_ver0(header):
    return set(re.findall(r"^#define\s+POSIXTRACE_(\w+)_SIZE_VER0\s", header, re.M))


def described_by(c_struct):
    """The syzlang structs that lay out a C struct: [] when STRUCT_MAP
    gives a reason instead, or does not know the struct."""
    syz = STRUCT_MAP.get(c_struct)
    return syz if isinstance(syz, list) else []


def check_header_coverage(desc, checker, ioctls, header):
    """Every struct, command and argument flag of the header is described."""
    errors = []
    syz_to_c = {s: c_name for c_name in STRUCT_MAP for s in described_by(c_name)}
    structs = header_structs(header)
    commands = header_ioctls(header)
    arg_structs = {s for s in commands.values() if s}
    for s in structs:
        if s not in STRUCT_MAP:
            errors.append(f"struct {s} of the header is not in check.py's STRUCT_MAP:"
                          " describe it, or say there why not")
        elif s in arg_structs and not described_by(s):
            errors.append(f"struct {s} is an ioctl argument and is not described")
    for s in STRUCT_MAP:
        if s not in structs:
            errors.append(f"STRUCT_MAP names struct {s}, which the header lacks")
    for syz in syz_to_c:
        if syz not in desc.structs:
            errors.append(f"STRUCT_MAP names syzlang struct {syz}, which"
                          " posixtrace.txt lacks")
    for name, st in desc.structs.items():
        if not st.is_union and name not in syz_to_c:
            errors.append(f"syzlang struct {name} lays out no C struct of"
                          " STRUCT_MAP: its layout would go unchecked")
    described = {io.cmd: io for io in ioctls}
    for cmd, c_struct in commands.items():
        io = described.get(cmd)
        if io is None:
            errors.append(f"command {cmd} of the header has no ioctl${cmd}")
            continue
        got = syz_to_c.get(io.struct) if io.struct else None
        if got != c_struct:
            errors.append(f"ioctl${cmd}: passes {io.struct or 'no argument'}"
                          f" (struct {got}), its command number names struct"
                          f" {c_struct}")
    for cmd in described:
        if cmd not in commands:
            errors.append(f"ioctl${cmd}: the header has no such command")
    in_flag_sets = {v.name for values in desc.int_flags.values() for v in values}
    for bit in header_bit_flags(header):
        if bit not in in_flag_sets and bit not in BITS_NOT_ARGUMENTS:
            errors.append(f"flag {bit} of the header is in no flag set of the"
                          " description (nor in check.py's BITS_NOT_ARGUMENTS)")
    # An extensible struct (it has a _SIZE_VER0) says its size first.
    for c_name in header_size_ver0(header):
        c_struct = "posixtrace_" + c_name.lower()
        for syz in described_by(c_struct):
            first = desc.structs[syz].fields[0]
            if first.name != "size" or str(first.type) != "bytesize[parent, int32]":
                errors.append(f"{syz}.size: struct {c_struct} is extensible: its"
                              " first field must be size bytesize[parent, int32]")
    return errors, syz_to_c


# ---------------------------------------------------------- the C programs

def c_includes(desc):
    """syzlang includes are relative to the kernel's include/ directory; the
    uapi ones are found here under -I include/uapi."""
    lines = ["#include <stddef.h>", "#include <stdio.h>", "#include <string.h>",
             "#include <asm/unistd.h>"]
    for inc in desc.includes:
        if not inc.startswith("uapi/"):
            raise DescriptionError(f"include <{inc}>: only uapi headers can be"
                                   " compiled here")
        lines.append(f"#include <{inc[len('uapi/'):]}>")
    for name, expr in desc.defines.items():
        lines.append(f"#define {name} {expr}")
    return "\n".join(lines) + "\n"


def syscall_consts(desc):
    """syz-sysgen puts __NR_ of every real system call used in the .const
    file; syz_* calls are the executor's own."""
    return {"__NR_" + c.base for c in desc.calls if not c.base.startswith("syz_")}


def const_program(desc, consts, paths):
    out = [c_includes(desc), "int main(void)\n{\n\tint bad = 0;\n"]
    for call, path in paths:
        # The path syzkaller opens is the device the module registers.
        out.append(f'\tif (strcmp({path}, "/dev/" POSIXTRACE_DEVICE_NAME)) {{\n'
                   f'\t\tfprintf(stderr, "{call.name}: opens %s, the module registers'
                   f' %s\\n", {path}, "/dev/" POSIXTRACE_DEVICE_NAME);\n'
                   "\t\tbad = 1;\n\t}\n")
    for name in sorted(consts):
        out.append(f'\tprintf("%s %llu\\n", "{name}", (unsigned long long)({name}));\n')
    out.append("\treturn bad;\n}\n")
    return "".join(out)


def layout_program(desc, checker, syz_to_c, ioctls, device_fd, stream_fd):
    """_Static_asserts of every struct layout and every ioctl; returns the
    program, the number of structs and of fields checked."""
    out = [c_includes(desc), "\n"]
    nstructs = nfields = 0
    errors = []
    for syz, c_name in sorted(syz_to_c.items()):
        st = desc.structs[syz]
        size, _, placed, padding = checker.struct_layout(st)
        if padding:
            # Implicit padding would differ on i386, where __u64 aligns on 4:
            # the header promises explicit padding, and so must this file.
            errors.append(f"{syz}: syzlang pads {', '.join(padding)}: the header's"
                          " padding is explicit, describe it as a field")
        nstructs += 1
        for f, offset, fsize in placed:
            nfields += 1
            where = f"{syz}.{f.name} (struct {c_name})"
            out.append(f"_Static_assert(offsetof(struct {c_name}, {f.name}) =="
                       f' {offset}, "{where}: syzlang offset {offset}");\n')
            out.append(f"_Static_assert(sizeof(((struct {c_name} *)0)->{f.name}) =="
                       f' {fsize}, "{where}: syzlang size {fsize}");\n')
        out.append(f"_Static_assert(sizeof(struct {c_name}) == {size},"
                   f' "{syz}: syzlang size {size} != sizeof(struct {c_name})");\n\n')
    for io in ioctls:
        cmd, name = io.cmd, io.call.name
        direction = {None: "_IOC_NONE", "in": "_IOC_WRITE", "out": "_IOC_READ",
                     "inout": "(_IOC_READ | _IOC_WRITE)"}[io.direction]
        out.append(f"_Static_assert(_IOC_DIR({cmd}) == {direction},"
                   f' "{name}: ptr[{io.direction}] does not match the direction'
                   f' of {cmd}");\n')
        if io.struct in syz_to_c:      # else check_header_coverage() said so
            c_name = syz_to_c[io.struct]
            out.append(f"_Static_assert(_IOC_SIZE({cmd}) == sizeof(struct {c_name}),"
                       f' "{name}: _IOC_SIZE is not sizeof(struct {c_name})");\n')
            out.append(f"_Static_assert(_IOC_SIZE({cmd}) =="
                       f" {checker.struct_layout(desc.structs[io.struct])[0]},"
                       f' "{name}: _IOC_SIZE is not the size of {io.struct}");\n')
        if io.fd not in (device_fd, stream_fd):
            errors.append(f"{name}: on {io.fd}, neither the device nor a stream")
        on_device = "<" if io.fd == device_fd else ">="
        out.append(f"_Static_assert(_IOC_NR({cmd}) {on_device}"
                   f" {FIRST_STREAM_COMMAND_NR:#x}, \"{name}: on {io.fd}, but"
                   f" {cmd} is numbered as a command of the other descriptor\");\n")
    return "".join(out), nstructs, nfields, errors


def compile_c(source, workdir, name, link, errors):
    """Compiles (and links) a program; gcc's errors end the check, with the
    ones found before."""
    cc = os.environ.get("CC", "gcc")
    src = os.path.join(workdir, name + ".c")
    with open(src, "w") as f:
        f.write(source)
    out = os.path.join(workdir, name)
    cmd = [cc, "-std=gnu11", "-Wall", "-Werror", "-I", UAPI_DIR, "-o", out, src]
    if not link:
        cmd.insert(1, "-c")
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode:
        gcc_errors = [re.sub(r"^.*?\.c:\d+:\d+: ", "", l)
                      for l in res.stderr.splitlines() if "error:" in l]
        raise DescriptionError("\n".join(errors + [
            f"{name}.c does not compile ({' '.join(cmd)}):"] + [
            "  " + l for l in gcc_errors or res.stderr.splitlines()]))
    return out


# ------------------------------------------------------- the .const file

def serialize_consts(values):
    """The text syz-sysgen writes (pkg/compiler/const_file.go Serialize) for
    one arch: a value shared by several arches becomes a default; with one
    arch there is none, and every line says amd64:value."""
    lines = ["# Code generated by syz-sysgen. DO NOT EDIT.",
             f"# {ARCH} only: written by selftests/syzkaller/check.py"
             " --write-const from include/uapi; syz-extract was not run.",
             f"arches = {ARCH}"]
    for name in sorted(values):
        lines.append(f"{name} = {ARCH}:{values[name]}")
    return "\n".join(lines) + "\n"


def parse_const_file(text):
    """name -> value for ARCH, read as DeserializeConstFile reads it."""
    values, arches = {}, None
    for n, line in enumerate(text.splitlines(), 1):
        if not line or line.startswith("#"):
            continue
        if "=" not in line:
            raise DescriptionError(f".const line {n}: expect '='")
        name, val = (s.strip() for s in line.split("=", 1))
        if arches is None:
            if name != "arches":
                raise DescriptionError(f".const line {n}: missing arches header")
            arches = [a.strip() for a in val.split(",")]
            continue
        default = None
        for pair in val.split(","):
            parts = [p.strip() for p in pair.split(":")]
            if len(parts) == 1:
                default = parts[0]
            elif ARCH in parts[:-1]:
                values[name] = parts[-1]
        if name not in values and default is not None and ARCH in arches:
            values[name] = default
    if arches is None or ARCH not in arches:
        raise DescriptionError(f".const: arches does not list {ARCH}")
    return {k: (None if v == "???" else int(v, 0)) for k, v in values.items()}


def compare_consts(const_path, values):
    try:
        with open(const_path) as f:
            text = f.read()
    except FileNotFoundError:
        return [f"{const_path} is missing: run check.py --write-const"]
    have = parse_const_file(text)
    errors = []
    for name in sorted(set(values) | set(have)):
        if name not in have:
            errors.append(f"const {name} = {values[name]} is missing from the"
                          " .const file")
        elif name not in values:
            errors.append(f"const {name} is in the .const file, the description"
                          " does not use it")
        elif have[name] != values[name]:
            errors.append(f"const {name}: the .const file says {have[name]}, the"
                          f" header {values[name]}")
    if not errors and text != serialize_consts(values):
        errors.append(f"{const_path} holds the right values but not as"
                      " --write-const writes them")
    return errors


# ------------------------------------------------------------------ main

def run(txt_path, const_path, write_const):
    with open(txt_path) as f:
        desc = parse_description(f.read())
    checker = TypeChecker(desc)
    ioctls, mmaps, ring_writes, paths = check_calls(desc, checker)
    for name, (base, specials) in desc.resources.items():
        if checker.resource_base(base) is None:
            raise DescriptionError(f"resource {name}: unknown base {base}")
        for v in specials:
            checker.const_ref(v, f"resource {name}")
    for name, vals in desc.int_flags.items():
        for v in vals:
            checker.const_ref(v, f"flags {name}")
    resources = {c.name: call_resources(desc, c) for c in desc.calls}
    check_resources_and_use(desc, checker, resources)

    header = read_header()
    errors, syz_to_c = check_header_coverage(desc, checker, ioctls, header)
    errors += check_enabled_alone(desc, resources)

    consts = checker.consts | syscall_consts(desc)
    with tempfile.TemporaryDirectory(prefix="syzcheck.") as work:
        exe = compile_c(const_program(desc, consts, paths), work, "consts", True,
                        errors)
        res = subprocess.run([exe], capture_output=True, text=True)
        if res.returncode:
            errors.append(res.stderr.strip() or "consts: the program failed")
        values = {}
        for line in res.stdout.splitlines():
            name, val = line.split()
            values[name] = int(val)
        checker.values = values
        check_string_sizes(desc, checker, errors)

        device_fd = next((c.ret.name for c in desc.calls if c.base == "openat"), None)
        stream_fd = next((io.call.ret.name for io in ioctls
                          if io.cmd == "POSIXTRACE_IOC_CREATE" and io.call.ret), None)
        program, nstructs, nfields, layout_errors = layout_program(
            desc, checker, syz_to_c, ioctls, device_fd, stream_fd)
        errors += layout_errors
        # The description's own errors first: gcc's may follow from them.
        compile_c(program, work, "layout", False, errors)

    if write_const:
        with open(const_path, "w") as f:
            f.write(serialize_consts(values))
    else:
        errors += compare_consts(const_path, values)
    if errors:
        raise DescriptionError("\n".join(errors))
    print(f"syzlang: {nstructs} structs, {nfields} fields, {len(ioctls)} ioctls,"
          f" {len(mmaps)} mmaps, {len(ring_writes)} ring writes,"
          f" {len(values)} consts checked")


def check_string_sizes(desc, checker, errors):
    """A string flag value, and its NUL, must fit a fixed-size string."""
    for st in desc.structs.values():
        for f in st.fields:
            t = f.type
            if t.name == "string" and len(t.args) == 2 and not t.args[0].is_string():
                size = checker.value(t.args[1])
                for v in desc.str_flags[t.args[0].name]:
                    if len(v) + 1 > size:
                        errors.append(f"{st.name}.{f.name}: {v!r} and its NUL do"
                                      f" not fit in {size} bytes")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--txt", default=DEFAULT_TXT,
                        help="the description to check (default: %(default)s)")
    # A scratch copy of the description is compared with the tree's .const
    # file, so that what it breaks, not the missing file, makes it fail.
    parser.add_argument("--const", default=DEFAULT_CONST,
                        help="the .const file (default: %(default)s)")
    parser.add_argument("--write-const", action="store_true",
                        help="write the .const file instead of comparing it")
    args = parser.parse_args()
    if args.write_const and args.txt != DEFAULT_TXT and args.const == DEFAULT_CONST:
        parser.error("--write-const of another --txt needs its own --const")
    const_path = args.const
    try:
        run(args.txt, const_path, args.write_const)
    except DescriptionError as e:
        print(f"check.py: {args.txt}:", file=sys.stderr)
        for line in str(e).splitlines():
            print(f"  {line}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
