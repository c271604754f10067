// Rows a caller hands over in its own memory — row-major double, float or bytes — read where they are, so a
// front end (the C API, a binding's array) passes a mini-batch to a trainer without copying it first.
#pragma once

#include <cstdint>

#include "zeta/base/numerics.hpp"

namespace zeta {

class RowsView {
 public:
  enum class Type { kDouble, kFloat, kByte };

  RowsView(const double* data, Eigen::Index rows, Eigen::Index cols) : RowsView(data, Type::kDouble, rows, cols) {}
  RowsView(const float* data, Eigen::Index rows, Eigen::Index cols) : RowsView(data, Type::kFloat, rows, cols) {}
  RowsView(const std::uint8_t* data, Eigen::Index rows, Eigen::Index cols) : RowsView(data, Type::kByte, rows, cols) {}
  // A view of a whole matrix, which must outlive the view.
  RowsView(const MatrixD& m) : RowsView(m.data(), m.rows(), m.cols()) {}  // NOLINT(google-explicit-constructor)

  Type type() const { return type_; }
  Eigen::Index rows() const { return rows_; }
  Eigen::Index cols() const { return cols_; }

  // Rows [first, first + count) as a view of the same memory.
  RowsView middle_rows(Eigen::Index first, Eigen::Index count) const {
    return RowsView(static_cast<const char*>(data_) + first * cols_ * element_size(), type_, count, cols_);
  }

  // Rows [first, first + count) into out (count × cols(), row-major), each value converted to S.
  template <class S>
  void copy_to(Eigen::Index first, Eigen::Index count, S* out) const {
    switch (type_) {
      case Type::kDouble: copy_as<double>(first, count, out); break;
      case Type::kFloat: copy_as<float>(first, count, out); break;
      case Type::kByte: copy_as<std::uint8_t>(first, count, out); break;
    }
  }

  // The rows as a double matrix (a copy).
  MatrixD to_matrix() const {
    MatrixD m(rows_, cols_);
    copy_to(0, rows_, m.data());
    return m;
  }

 private:
  RowsView(const void* data, Type type, Eigen::Index rows, Eigen::Index cols)
      : data_(data), type_(type), rows_(rows), cols_(cols) {}

  Eigen::Index element_size() const {
    switch (type_) {
      case Type::kDouble: return sizeof(double);
      case Type::kFloat: return sizeof(float);
      case Type::kByte: return 1;
    }
    return 1;
  }

  template <class T, class S>
  void copy_as(Eigen::Index first, Eigen::Index count, S* out) const {
    using Rows = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const Eigen::Map<const Rows> in(static_cast<const T*>(data_) + first * cols_, count, cols_);
    Eigen::Map<Mat<S>>(out, count, cols_) = in.template cast<S>();
  }

  const void* data_;
  Type type_;
  Eigen::Index rows_;
  Eigen::Index cols_;
};

}  // namespace zeta
