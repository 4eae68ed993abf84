#pragma once

#include <cstddef>

namespace util {

// A view over a contiguous range of elements.
template <typename T>
class Span {
public:
    Span(T* data, std::size_t size) : data_(data), size_(size) {}

    T& operator[](std::size_t index) { return data_[index]; }

    std::size_t size() const { return size_; }

    Span first(std::size_t count) const {
        return Span(data_, count < size_ ? count : size_);
    }

private:
    T* data_;
    std::size_t size_;
};

}  // namespace util
