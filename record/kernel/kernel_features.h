// What the running kernel offers for recording USDT probes, probed once at
// start from sysfs: the dynamic "uprobe" PMU's type number and the bit
// positions of its retprobe and ref_ctr_offset config fields (read from the
// PMU's format/ directory, never assumed), and the CPUs to open events on.
// Source of truth: Documentation/ABI/testing/sysfs-bus-event_source-devices-format
// and kernel/events/core.c (perf_uprobe_init).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"

namespace usdt::record {

struct KernelFeatures {
  uint32_t uprobe_type = 0;  // perf_event_attr::type of the uprobe PMU
  int retprobe_bit = -1;     // bit of attr.config that makes a uretprobe
  int ref_ctr_shift = -1;    // first bit of ref_ctr_offset in attr.config; -1 = unsupported
  std::vector<int> cpus;     // online CPUs, ascending
  // MMAP2 records can carry the mapped file's build-id (attr.build_id,
  // Linux 5.12+); probed only for -g (probe_mmap_build_id).
  bool mmap_build_id = false;
  // An inherited event may sample PERF_SAMPLE_READ (Linux 6.12+), which keeps
  // the task contexts of a traced process's children apart (perf_event.h,
  // open_tracking); probed at every start (probe_inherit_sample_read).
  bool inherit_sample_read = false;
  bool semaphores_supported() const { return ref_ctr_shift >= 0; }
};

// Parses a sysfs PMU format field such as "config:0" or "config:32-63" into
// its first bit. Fails on anything that is not a config field (config1/2 or
// a bad range).
Result<int> parse_config_field_shift(const std::string& text);

// Parses a CPU list such as "0-3,5,7-8" (sysfs /sys/devices/system/cpu/online).
Result<std::vector<int>> parse_cpu_list(const std::string& text);

// Reads the features from sysfs (sysfs_root is for tests). Fails with a
// message and hint when the uprobe PMU is absent (a kernel older than 4.17 or
// without CONFIG_UPROBE_EVENTS).
Result<KernelFeatures> probe_kernel_features(const std::string& sysfs_root = "/sys");

// Whether the kernel accepts attr.build_id on an MMAP2 tracking event: opens
// (and closes) a disabled dummy event on the calling thread with it. False on
// kernels before 5.12, which reject the unknown bit with EINVAL.
bool probe_mmap_build_id();

// Whether the kernel accepts an inherited event with PERF_SAMPLE_READ (and
// PERF_SAMPLE_TID, which it requires): opens (and closes) a disabled dummy
// event on the calling thread with them. False before Linux 6.12 (EINVAL).
bool probe_inherit_sample_read();

}  // namespace usdt::record
