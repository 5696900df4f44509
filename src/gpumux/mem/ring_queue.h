// FIFO on a ring buffer: no allocation once it has reached its working size.
// Owners bound it (size() against their configured capacity); it only grows
// when asked to hold more than it ever held.
#pragma once

#include <cstddef>
#include <vector>

namespace gpumux::mem {

template <class T>
class RingQueue {
 public:
  explicit RingQueue(size_t capacity = 8) : items_(capacity ? capacity : 1) {}
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  T& front() { return items_[head_]; }
  const T& front() const { return items_[head_]; }
  const T& operator[](size_t i) const { return items_[(head_ + i) % items_.size()]; }
  void push(const T& v) {
    if (size_ == items_.size()) grow();
    items_[(head_ + size_) % items_.size()] = v;
    ++size_;
  }
  void pop() {
    head_ = (head_ + 1) % items_.size();
    --size_;
  }

 private:
  void grow() {
    std::vector<T> bigger(items_.size() * 2);
    for (size_t i = 0; i < size_; ++i) bigger[i] = (*this)[i];
    items_.swap(bigger);
    head_ = 0;
  }
  std::vector<T> items_;
  size_t head_ = 0, size_ = 0;
};

}  // namespace gpumux::mem
