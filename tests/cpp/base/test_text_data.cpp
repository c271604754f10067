// The text readers (svmlight, CSV): good input read exactly, malformed input a format error naming the line and
// the field.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "test_util.hpp"
#include "zeta/base/error.hpp"
#include "zeta/base/numerics.hpp"
#include "zeta/base/sparse.hpp"
#include "zeta/base/text_data.hpp"

namespace zeta {
namespace {

using testing::expect_error;

TEST(TextData, SvmlightReadsGoodInput) {
  const SparseDataset d = parse_svmlight_string(
      "# a comment line\n"
      "+1 1:0.5 3:2 # trailing comment\n"
      "\n"
      "-1 qid:7 2:-1.5e-3\n"
      "0\n");
  ASSERT_EQ(d.x.rows, 3);
  EXPECT_EQ(d.x.cols, 3);
  EXPECT_EQ(d.labels, (std::vector<double>{1.0, -1.0, 0.0}));
  MatrixD want = MatrixD::Zero(3, 3);
  want(0, 0) = 0.5;
  want(0, 2) = 2.0;
  want(1, 1) = -1.5e-3;
  EXPECT_TRUE(csr_to_dense(d.x) == want);
  SvmlightConfig zero;
  zero.zero_based = true;
  zero.n_features = 10;
  const SparseDataset z = parse_svmlight_string("1 0:1 9:2\n", zero);
  EXPECT_EQ(z.x.cols, 10);
  EXPECT_EQ(z.x.indices, (std::vector<std::int32_t>{0, 9}));
}

TEST(TextData, SvmlightRejectsMalformedInput) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"1 1:1\nabc 1:1\n", "<string>:2: label 'abc'"},
      {"1 1:1 2\n", "expected index:value"},
      {"1 2:1 1:1\n", "strictly increasing"},
      {"1 2:1 2:1\n", "strictly increasing"},
      {"1 0:1\n", "below 1"},
      {"1 x:1\n", "not an integer"},
      {"1 1.5:1\n", "not an integer"},
      {"1 1:nan\n", "not a finite number"},
      {"1 1:inf\n", "not a finite number"},
      {"1 1:1e999\n", "not a finite number"},
      {"1 1:\n", "not a finite number"},
      {"nan 1:1\n", "label"},
      {"1 qid:x 1:1\n", "qid"},
      {"1 99999999999:1\n", "too large"},
      {std::string("1 1:1\0\n", 7), "NUL"},
  };
  for (const auto& [text, fragment] : cases) {
    expect_error([&] { parse_svmlight_string(text); }, ErrorCode::kFormat, fragment);
  }
  SvmlightConfig few;
  few.n_features = 2;
  expect_error([&] { parse_svmlight_string("1 3:1\n", few); }, ErrorCode::kFormat, "exceeds the 2 features");
  expect_error([] { read_svmlight("/nonexistent/file.svm"); }, ErrorCode::kIo, "cannot open");
}

TEST(TextData, CsvReadsGoodInputAndRejectsMalformedInput) {
  CsvConfig o;
  o.header = true;
  o.label_column = 2;
  const DenseDataset d = parse_csv_string("a, b ,y\n1,2,0\n\n-3.5, 4e1 ,1\n", o);
  ASSERT_EQ(d.x.rows(), 2);
  ASSERT_EQ(d.x.cols(), 2);
  EXPECT_EQ(d.column_names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(d.labels, (std::vector<double>{0.0, 1.0}));
  EXPECT_EQ(d.x(1, 0), -3.5);
  EXPECT_EQ(d.x(1, 1), 40.0);
  CsvConfig semi;
  semi.delimiter = ';';
  EXPECT_EQ(parse_csv_string("1;2;3\n", semi).x.cols(), 3);
  EXPECT_EQ(parse_csv_string("").x.rows(), 0);

  expect_error([] { parse_csv_string("1,2\n3\n"); }, ErrorCode::kFormat, "<string>:2: has 1 fields, expected 2");
  expect_error([] { parse_csv_string("1,x\n"); }, ErrorCode::kFormat, "field 2 'x' is not a finite number");
  expect_error([] { parse_csv_string("1,,3\n"); }, ErrorCode::kFormat, "field 2");
  expect_error([] { parse_csv_string("1,nan\n"); }, ErrorCode::kFormat, "not a finite number");
  CsvConfig far;
  far.label_column = 5;
  expect_error([&] { parse_csv_string("1,2\n", far); }, ErrorCode::kFormat, "label column 5");
  CsvConfig neg;
  neg.label_column = -2;
  expect_error([&] { parse_csv_string("1,2\n", neg); }, ErrorCode::kArgument, "label_column");
  expect_error([] { read_csv("/nonexistent/file.csv"); }, ErrorCode::kIo, "cannot open");
}

}  // namespace
}  // namespace zeta
