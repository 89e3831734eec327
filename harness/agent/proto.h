/* proto.h - the host <-> guest agent protocol, shared by both sides.
 *
 * Transport: any byte stream. The agent picks it from kbench.transport= on
 * the kernel command line or its --transport= argument: "virtio" (the
 * default: a virtio-serial port named KB_PORT_NAME, which QEMU exposes to
 * the host as a UNIX socket), "stdio" (the agent run as an ordinary
 * process, or behind a serial line) or "tcp:IPv4:PORT" (it connects to
 * the host). The host side only needs a connected fd (backend.h). Messages are single-line JSON objects ended by
 * '\n' (json-c on both sides). The host speaks first ("hello"), so nothing
 * the guest says is lost to a host that connects late; each request carries
 * an "id" that its "result" echoes.
 *
 * host -> guest  {"op":"hello"}
 *                {"op":"exec","id":N,"argv":[..],"bg_argv":[..],"cwd":"..",
 *                 "root":"/kbroot" (chroot), "bg_root": the same for bg_argv,
 *                 "env":["K=V",..] (replaces the
 *                 environment), "timeout_s":N,"max_output":N}
 *                {"op":"mount","id":N,"dev":"/dev/vda"|"serial":"kbuild",
 *                 "dir":"/scratch","fstype":"ext4","options":"..","readonly":B}
 *                {"op":"symlink","id":N,"target":"usr/bin","path":"/kbroot/bin"}
 *                {"op":"read","id":N,"path":".."}   {"op":"write","id":N,"path":"..","data":".."}
 *                {"op":"poweroff"}
 * guest -> host  {"op":"hello","proto":1,"kernel":"..","kernel_version":"..",
 *                 "realtime":"1"|null,"cmdline":"..","nproc":N,"mem_kb":N,
 *                 "uptime_s":X,"modules_failed":[..],"lock_stats":B,
 *                 "rtmutex_params":{name:value}|null,
 *                 "machine_facts":{..}}  (optional, still proto 1: the
 *                 guest's core/machine.h facts; an older agent omits it;
 *                 "session": the agent's --session=ID, when given)
 *                {"op":"result","id":N,"status":N,"signal":N,"timed_out":B,
 *                 "wall_s":X,"user_s":X,"sys_s":X,"stdout":"..","stderr":"..",
 *                 "truncated":B,"bg_runs":N,"error":".."}
 */
#ifndef KBENCH_PROTO_H
#define KBENCH_PROTO_H

#define KB_PROTO_VERSION 1
#define KB_PORT_NAME "org.kbench.agent.0"
/* Largest message either side accepts (guest output is untrusted). */
#define KB_PROTO_MAX_LINE (32u << 20)
/* The reference patch's lock counters (kernels/patches/). */
#define KB_LOCK_STATS "/sys/kernel/debug/rtmutex/stats"
#define KB_LOCK_STATS_RESET "/sys/kernel/debug/rtmutex/reset"
#define KB_RTMUTEX_PARAMS "/sys/module/rtmutex/parameters"

/* The guest-side root of the host's toolchain (kbuild) and the serial
 * of the kbuild disk. */
#define KB_HOSTROOT "/kbroot"
#define KB_KBUILD_SERIAL "kbuild"

/* Default cap on a command's captured stdout/stderr. */
#define KB_PROTO_MAX_OUTPUT (8u << 20)

#endif
