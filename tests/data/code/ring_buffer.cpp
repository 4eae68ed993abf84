#include <cstddef>
#include <stdexcept>
#include <vector>

namespace util {

// A fixed-capacity FIFO that overwrites the oldest element when full.
template <typename T>
class RingBuffer {
public:
    explicit RingBuffer(std::size_t capacity) : data_(capacity), head_(0), size_(0) {
        if (capacity == 0) {
            throw std::invalid_argument("capacity must be positive");
        }
    }

    void push(const T& value) {
        data_[(head_ + size_) % data_.size()] = value;
        if (size_ < data_.size()) {
            ++size_;
        } else {
            head_ = (head_ + 1) % data_.size();
        }
    }

    T pop() {
        if (size_ == 0) {
            throw std::out_of_range("pop from empty ring buffer");
        }
        T value = data_[head_];
        head_ = (head_ + 1) % data_.size();
        --size_;
        return value;
    }

    std::size_t size() const { return size_; }

private:
    std::vector<T> data_;
    std::size_t head_;
    std::size_t size_;
};

}  // namespace util

static double average(const std::vector<double>& values) {
    if (values.empty()) {
        return 0.0;
    }
    double sum = 0.0;
    for (double v : values) {
        sum += v;
    }
    return sum / static_cast<double>(values.size());
}

int main(int argc, char** argv) {
    util::RingBuffer<double> buffer(4);
    for (int i = 0; i < argc; ++i) {
        buffer.push(static_cast<double>(i));
    }
    std::vector<double> drained;
    while (buffer.size() > 0) {
        drained.push_back(buffer.pop());
    }
    return average(drained) > 1.0 ? 0 : 1;
}
