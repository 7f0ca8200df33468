// What `cortado tune` tells people: a progress line while it searches, and at the end a table
// per op signature (the steps that run it, default and tuned time, speed-up, the chosen choice).
#pragma once

#include <string>
#include <vector>

#include "compiler/tuner/tuner.h"

namespace cortado {

// One line; on a terminal it rewrites itself ("\r"), elsewhere nothing is printed until `done`.
void print_progress(const TuneProgress &progress, bool done);

std::string tune_summary_table(const std::vector<TuneSummaryRow> &rows);

}  // namespace cortado
