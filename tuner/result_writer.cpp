// ResultWriter: batched commits.
#include "tuner/result_writer.h"

#include "db/store.h"

namespace vktune::tuner {

ResultWriter::~ResultWriter() {
  try {
    flush();
  } catch (...) {
  }
}

void ResultWriter::add(const db::Measurement& m) {
  if (pending_.empty()) oldest_ = std::chrono::steady_clock::now();
  pending_.push_back(m);
  if (std::chrono::steady_clock::now() - oldest_ >= max_delay_) flush();
}

void ResultWriter::flush() {
  if (pending_.empty()) return;
  db::Transaction transaction = store_.transaction();
  // In queue order, so a re-measurement (a later stage) replaces the earlier row.
  for (const db::Measurement& m : pending_) store_.add_measurement(m, db::OnConflict::update);
  transaction.commit();
  pending_.clear();
}

}  // namespace vktune::tuner
