// What `cortado tune` tells people: a progress line while it searches, and at the end a table
// per op signature (the steps that run it, default and tuned time, speed-up, the chosen choice).
#pragma once

#include <string>
#include <vector>

namespace cortado {

struct TuneProgress {
    int index = 0, count = 0;  // which op signature, of how many
    std::string steps;         // the steps that run it
    int candidates = 0, rejected = 0;
    double default_ms = -1, best_ms = -1;
    double seconds_left = 0;
};

// One line; on a terminal it rewrites itself ("\r"), elsewhere nothing is printed until `done`.
void print_progress(const TuneProgress &progress, bool done);

struct TuneSummaryRow {
    std::string steps;
    int step_count = 0;
    double default_ms = -1, tuned_ms = -1;
    std::string choice;  // "variant knob=value ..."; "default" when the default stayed best
    int candidates = 0, rejected = 0;
};

std::string tune_summary_table(const std::vector<TuneSummaryRow> &rows);

}  // namespace cortado
