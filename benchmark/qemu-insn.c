/*
 * A qemu-user TCG plugin that counts the guest instructions a program runs
 * and prints `insns: N` on stderr at exit: the count of qemu's own
 * tests/plugin/insn.c, which Debian's qemu-user does not ship. Built and
 * loaded by benchmark/stop-search.mjs (`insns`):
 *
 *   cc -shared -fPIC -O2 -o libinsn.so benchmark/qemu-insn.c
 *   qemu-aarch64 -plugin ./libinsn.so PROGRAM ...
 *
 * The few declarations it needs are those of QEMU's plugin API, version 1
 * (include/qemu/qemu-plugin.h of QEMU 7.2, Debian 12's qemu-user): every
 * translated block adds its instruction count to one counter each time it
 * runs, inline, so the count is exact for a single-threaded guest.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t, struct qemu_plugin_tb *);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t, void *);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t, qemu_plugin_vcpu_tb_trans_cb_t);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *, enum qemu_plugin_op, void *, uint64_t);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t, qemu_plugin_udata_cb_t, void *);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t insns;

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
  (void)id;
  qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &insns, qemu_plugin_tb_n_insns(tb));
}

static void report(qemu_plugin_id_t id, void *data) {
  (void)id;
  (void)data;
  fprintf(stderr, "insns: %llu\n", (unsigned long long)insns);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
                                                               char **argv) {
  (void)info;
  (void)argc;
  (void)argv;
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
  qemu_plugin_register_atexit_cb(id, report, NULL);
  return 0;
}
