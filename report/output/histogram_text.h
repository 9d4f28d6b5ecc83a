// Histogram buckets as the commands print them: text bars in the style of
// bpftrace's hist()/lhist() ("[1K, 2K)  123 |@@@@   |").
#pragma once

#include <string>
#include <vector>

#include "report/stats/histogram_bucket.h"

namespace usdt::report {

// "[0]", "[2, 4)", "[1K, 2K)", "(..., 0)", "[100, ...)". Powers of 1024
// get bpftrace's K/M/G/T/P/E suffixes when the number is an exact multiple.
std::string bucket_label(const HistogramBucket& bucket);

// One line per bucket: label, count, a 52-column bar scaled to the largest
// count. Empty string for no buckets.
std::string render_histogram_text(const std::vector<HistogramBucket>& buckets);

// The same, each line after indent.
std::string render_histogram_text(const std::vector<HistogramBucket>& buckets, const std::string& indent);

}  // namespace usdt::report
