#!/usr/bin/env python3
"""What each module costs in a binary: sums `nm --print-size` symbol sizes by module.

Swift symbols are attributed to the module named first in their mangled name (a generic
specialised in module B for a type of module A counts for A); C and C++ symbols by prefix.
Usage: sizes.py BINARY (an unstripped binary).
"""
import re
import subprocess
import sys
from collections import defaultdict

binary = sys.argv[1]
out = subprocess.run(["nm", "--print-size", "--size-sort", binary], capture_output=True, text=True, check=True).stdout

GROUPS = [
    # (bucket, module-name or symbol-prefix regex)
    ("splashd (our code)", r"^(Splash\w*|splashd|splashctl|CSystemd)$"),
    ("AsyncHTTPClient", r"^AsyncHTTPClient$"),
    ("NIO (core, posix, http1/2, extras, embedded)", r"^(NIO\w*|_NIO\w*|CNIO(?!BoringSSL)\w*)$"),
    ("NIOSSL + BoringSSL (TLS)", r"^(NIOSSL|CNIOBoringSSL\w*|NIOTLS)$"),
    ("swift-certificates / crypto / asn1", r"^(X509|SwiftASN1|Crypto\w*|_Crypto\w*|CCrypto\w*|_CertificateInternals)$"),
    ("TOMLKit + toml++", r"^(TOMLKit|CTOML)$"),
    ("swift-log", r"^Logging$"),
    ("swift-argument-parser", r"^(ArgumentParser\w*)$"),
    ("swift-service-lifecycle", r"^(ServiceLifecycle|UnixSignals|AsyncAlgorithms|ConcurrencyHelpers|ServiceContextModule|Tracing|Instrumentation)$"),
    ("swift-subprocess + swift-system", r"^(Subprocess|SystemPackage|CSystem|_SubprocessCShims)$"),
    ("swift-atomics / collections / algorithms", r"^(Atomics|_AtomicsShims|DequeModule|InternalCollectionsUtilities|Algorithms|\w*Collections\w*)$"),
    ("FoundationEssentials", r"^(FoundationEssentials|_FoundationCShims|_FoundationCollections)$"),
    ("Foundation / FoundationInternationalization / ICU", r"^(Foundation|FoundationInternationalization|_FoundationICU|FoundationNetworking)$"),
    ("Swift runtime + stdlib + Concurrency", r"^(Swift|_Concurrency|_StringProcessing|RegexBuilder|Synchronization|_SwiftConcurrencyShims|Dispatch|DispatchIntrospection)$"),
]

ident = re.compile(r"(\d+)")


def swift_module(name):
    # $s<module>...: `s` alone is the Swift module; `So`/`SC` are imported C names.
    body = name[2:]
    if body.startswith("s") and (len(body) == 1 or not body[1].isdigit()):
        return "Swift"
    if body.startswith("So") or body.startswith("SC"):
        return "Swift"
    i = 0
    while i < len(body):
        m = ident.match(body, i)
        if m:
            n = int(m.group(1))
            start = m.end()
            if body[start:start + 1] == "_" and n > 0:  # punycode / private discriminators
                pass
            return body[start:start + n]
        i += 1
    return "?"


def c_bucket(name):
    n = name.lstrip("_")
    if n.startswith("CNIOBoringSSL") or n.startswith("ZN") and "bssl" in n:
        return "NIOSSL + BoringSSL (TLS)"
    if "toml" in name.lower():
        return "TOMLKit + toml++"
    if n.startswith("c_nio") or n.startswith("CNIO"):
        return "NIO (core, posix, http1/2, extras, embedded)"
    if "icu" in name.lower() or re.search(r"_7\d$", name) or name.startswith("u_") or name.startswith("ucal_") or name.startswith("udat_"):
        return "Foundation / FoundationInternationalization / ICU"
    if name.startswith("swift_") or name.startswith("_swift") or "swift" in name.lower():
        return "Swift runtime + stdlib + Concurrency"
    if n.startswith("_ZN") or n.startswith("ZN") or n.startswith("ZT"):
        return "other C++"
    return "other C"


def bucket_for_module(module):
    for bucket, pattern in GROUPS:
        if re.match(pattern, module):
            return bucket
    return "other Swift (" + module + ")"


totals = defaultdict(int)
other_modules = defaultdict(int)
for line in out.splitlines():
    parts = line.split()
    if len(parts) != 4:
        continue
    size = int(parts[1], 16)
    name = parts[3]
    if name.startswith("$s"):
        module = swift_module(name)
        bucket = bucket_for_module(module)
        if bucket.startswith("other Swift"):
            other_modules[module] += size
            bucket = "other Swift"
    else:
        bucket = c_bucket(name)
    totals[bucket] += size

total = sum(totals.values())
print(f"{'bucket':52} {'KiB':>9} {'share':>6}")
for bucket, size in sorted(totals.items(), key=lambda kv: -kv[1]):
    print(f"{bucket:52} {size / 1024:9.0f} {100 * size / total:5.1f}%")
print(f"{'all sized symbols':52} {total / 1024:9.0f}")
if other_modules:
    top = sorted(other_modules.items(), key=lambda kv: -kv[1])[:8]
    print("other Swift, largest modules: " + ", ".join(f"{m} {s // 1024} KiB" for m, s in top))
