#include "pairing/pair_matcher.h"

namespace usdt::pairing {

PairMatcher::PairMatcher(PairingRules rules) : rules_(std::move(rules)) {
  site_rules_.resize(rules_.roles.size());
  for (size_t s = 0; s < site_rules_.size(); ++s) {
    site_rules_[s].role = rules_.roles[s];
    // Domains (trace files) stay below 2^16, so bits 48-63 are free for the class.
    if (s < rules_.pair_class.size()) {
      site_rules_[s].key_class = uint64_t{rules_.pair_class[s]} << 48;
    }
  }
  site_count_ = static_cast<uint32_t>(site_rules_.size());
  id_key_ = rules_.key == KeyKind::tid || rules_.key == KeyKind::pid;
  key_is_pid_ = rules_.key == KeyKind::pid;
}

void PairMatcher::add_site(SiteRole role, uint16_t pair_class, int key_arg) {
  const size_t before = rules_.roles.size();
  rules_.roles.push_back(role);
  if (!rules_.pair_class.empty() || pair_class != 0) {
    rules_.pair_class.resize(before, 0);
    rules_.pair_class.push_back(pair_class);
  }
  if (!rules_.key_arg.empty() || key_arg >= 0) {
    rules_.key_arg.resize(before, -1);
    rules_.key_arg.push_back(key_arg);
  }
  site_rules_.push_back(SiteRule{role, uint64_t{pair_class} << 48});
  site_count_ = static_cast<uint32_t>(site_rules_.size());
}

bool PairMatcher::key_of(uint32_t site, uint32_t domain, const format::Event& e, Key* key) {
  const uint64_t cls = site_rules_[site].key_class;
  switch (rules_.key) {
    case KeyKind::tid:
      key->value = pairing_id_key(domain, e.tid) | cls;
      return true;
    case KeyKind::pid:
      key->value = pairing_id_key(domain, e.pid) | cls;
      return true;
    case KeyKind::arg: {
      const int i = site < rules_.key_arg.size() ? rules_.key_arg[site] : -1;
      if (i < 0 || !e.has_arg(i)) return false;
      key->is_string = e.is_string(i);
      if (!key->is_string) {
        key->value = e.args[i];
        return true;
      }
      const format::StringArg& s = e.string_arg(i);
      scratch_.assign(1, s.truncated ? '\1' : '\0');
      if (rules_.string_key_shape) {
        scratch_.append(rules_.string_key_shape(s.bytes));
      } else {
        scratch_.append(s.bytes);
      }
      return true;
    }
  }
  return false;
}

uint32_t* PairMatcher::find_head(const Key& key) {
  if (!key.is_string) return open_.find(key.value);
  auto it = open_strings_.find(std::string_view(scratch_));
  return it == open_strings_.end() ? nullptr : &it->second;
}

uint32_t& PairMatcher::head_of(const Key& key) {
  if (!key.is_string) return open_[key.value];
  auto it = open_strings_.find(std::string_view(scratch_));
  if (it == open_strings_.end()) it = open_strings_.emplace(scratch_, 0).first;
  return it->second;
}

void PairMatcher::erase_head(const Key& key) {
  if (!key.is_string) {
    open_.erase(key.value);
    return;
  }
  auto it = open_strings_.find(std::string_view(scratch_));
  if (it != open_strings_.end()) open_strings_.erase(it);
}

// A return's frame is its entry's plus 8 (the popped return address). Open
// entries of the thread with a lower one were left by a longjmp or an
// exception unwinding past them: they can no longer return, so they are
// unmatched starts, and the return pairs with its own entry further up.
void PairMatcher::drop_abandoned(uint32_t* head, uint64_t return_frame) {
  while (*head != 0) {
    Node& n = nodes_[*head - 1];
    if (n.frame == 0 || n.frame + 8 >= return_frame) return;
    *head = n.below;
    n.live = false;
    release_node(static_cast<uint32_t>(&n - nodes_.data()));
    --open_count_;
    ++abandoned_starts_;
  }
}

// A return whose frame is below its innermost open entry's belongs to a call
// that began before that entry was seen (before the recording): unmatched.
bool PairMatcher::frames_agree(const Node& start, uint64_t end_frame) const {
  if (rules_.key != KeyKind::tid || start.frame == 0 || end_frame == 0) return true;
  return start.frame + 8 == end_frame;
}

void PairMatcher::push_start(const Key& key, uint32_t index) {
  uint32_t& head = head_of(key);
  nodes_[index].below = head;
  nodes_[index].live = true;
  head = index + 1;
  ++open_count_;
}

PairMatcher::Pop PairMatcher::pop_start(const Key& key, uint64_t end_frame, uint32_t* index) {
  uint32_t* head = find_head(key);
  if (head != nullptr && end_frame != 0 && rules_.key == KeyKind::tid) {
    drop_abandoned(head, end_frame);
  }
  if (head == nullptr || *head == 0) return Pop::none_open;
  if (!frames_agree(nodes_[*head - 1], end_frame)) return Pop::frames_disagree;
  *index = *head - 1;
  Node& n = nodes_[*index];
  if (n.below != 0) {
    *head = n.below;
  } else if (rules_.key == KeyKind::arg) {
    // Argument keys (request ids) are unbounded: drop the empty stack.
    erase_head(key);
  } else {
    // Thread and process keys are few and come back: keep the empty slot.
    *head = 0;
  }
  n.live = false;
  release_node(*index);
  --open_count_;
  return Pop::paired;
}

void PairMatcher::keep_end(const Key& key, uint32_t site, const format::Event& e, uint64_t time,
                           uint64_t tag) {
  kept_ends_.push_back(
      KeptEnd{key, key.is_string ? scratch_ : std::string(), time, e.frame, site, tag});
}

PairMatcher::Outcome PairMatcher::on_event_general(uint32_t site, uint32_t domain,
                                                   const format::Event& e, uint64_t time,
                                                   uint64_t tag) {
  const SiteRole role = site_rules_[site].role;
  Key key;
  if (!key_of(site, domain, e, &key)) {
    ++(role == SiteRole::start ? missing_key_starts_ : missing_key_ends_);
    return Outcome::missing_key;
  }
  last_key_ = key;
  if (role == SiteRole::start) {
    const uint32_t index = new_node();
    init_start(index, site, domain, e, time, tag);
    push_start(key, index);
    last_node_ = index;
    return Outcome::started;
  }
  uint32_t index = 0;
  const Pop popped = pop_start(key, e.frame, &index);
  if (popped == Pop::none_open && rules_.later_segment) {
    // Perhaps the end of a start in an earlier segment: the merge decides.
    keep_end(key, site, e, time, tag);
    return Outcome::kept_end;
  }
  if (popped != Pop::paired) {
    ++unmatched_ends_;
    return Outcome::unmatched_end;
  }
  last_node_ = index;
  return Outcome::paired;
}

void PairMatcher::merge_kept_ends(const PairMatcher& later,
                                  const std::function<void(size_t, const Node*)>& f) {
  for (size_t i = 0; i < later.kept_ends_.size(); ++i) {
    const KeptEnd& end = later.kept_ends_[i];
    if (end.key.is_string) scratch_ = end.key_text;
    uint32_t index = 0;
    if (pop_start(end.key, end.frame, &index) != Pop::paired) {
      ++unmatched_ends_;
      f(i, nullptr);
      continue;
    }
    last_key_ = end.key;
    f(i, &nodes_[index]);
  }
}

void PairMatcher::merge_open_starts(const PairMatcher& later,
                                    const std::function<void(uint32_t, uint32_t)>& moved) {
  // later's open starts, each key's from its outermost to its innermost.
  std::vector<uint32_t> chain;
  auto take_stack = [&](const Key& key, uint32_t head) {
    chain.clear();
    for (uint32_t i = head; i != 0; i = later.nodes_[i - 1].below) chain.push_back(i - 1);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const uint32_t index = new_node();
      nodes_[index] = later.nodes_[*it];
      push_start(key, index);
      if (moved) moved(*it, index);
    }
  };
  later.open_.for_each([&](uint64_t k, uint32_t head) { take_stack(Key{false, k}, head); });
  for (const auto& [text, head] : later.open_strings_) {
    scratch_ = text;
    take_stack(Key{true, 0}, head);
  }
  abandoned_starts_ += later.abandoned_starts_;
  unmatched_ends_ += later.unmatched_ends_;
  missing_key_starts_ += later.missing_key_starts_;
  missing_key_ends_ += later.missing_key_ends_;
}

void PairMatcher::retag(const std::function<uint64_t(uint64_t)>& f) {
  for (Node& n : nodes_) {
    if (n.live) n.tag = f(n.tag);
  }
  for (KeptEnd& end : kept_ends_) end.tag = f(end.tag);
}

}  // namespace usdt::pairing
