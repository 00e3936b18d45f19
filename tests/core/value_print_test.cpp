// NumPy printing of values. The expected strings are NumPy's own output (NumPy 2.4 with
// np.set_printoptions(legacy='1.25'), i.e. the NumPy 1.x that TensorFlow 1.x printed with),
// pasted literally; the script that produced them is not part of the repository.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "symflow/core/value.hpp"
#include "symflow/core/value_print.hpp"
#include "symflow/detail/float_repr.hpp"  // python_float_repr: not in value_print.hpp when compiled

namespace symflow_test_core_value_print_test {

namespace symflow_value_print_test {

using symflow::Dims;
using symflow::Value;

constexpr float kNanF = std::numeric_limits<float>::quiet_NaN();
constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Element i (row-major) is T((i * mul + add) / div), computed in double like NumPy's
// ((np.arange(n) * mul + add) / div).astype(T).reshape(dims).
template <class T>
Value ramp(Dims dims, double mul, double add, double div) {
  Value v(symflow::dtype_v<T>, std::move(dims));
  T* p = v.data<T>();
  for (std::int64_t i = 0; i < v.size(); ++i)
    p[i] = static_cast<T>((static_cast<double>(i) * mul + add) / div);
  return v;
}

Value with_middle(Value v, std::int64_t index, float x) {
  v.data<float>()[index] = x;
  return v;
}

}  // namespace symflow_value_print_test

using namespace symflow_value_print_test;  // NOLINT(google-build-using-namespace)

TEST_CASE("core/value_print: integer arrays are right-aligned to the widest element") {
  CHECK(symflow::to_string(Value::from_vector<std::int32_t>({1, 2, 3}, {3})) == "[1 2 3]");
  CHECK(symflow::to_string(Value::from_vector<std::int32_t>({1, 1, 0, 0, 1, 0, 4, 0}, {2, 4})) ==
        "[[1 1 0 0]\n [1 0 4 0]]");
  CHECK(symflow::to_string(Value::from_vector<std::int32_t>({-1, 10, -100}, {3})) ==
        "[  -1   10 -100]");
  CHECK(symflow::to_string(Value::from_vector<std::int64_t>({-5, 3, 12, 7}, {2, 2})) ==
        "[[-5  3]\n [12  7]]");
  CHECK(symflow::to_string(Value::from_vector<std::int64_t>(
            {std::int64_t{9007199254740993}, -1}, {2})) == "[9007199254740993               -1]");
  CHECK(symflow::to_string(Value::from_vector<std::uint8_t>(
            {std::uint8_t{0}, std::uint8_t{7}, std::uint8_t{255}}, {3})) == "[  0   7 255]");
  CHECK(symflow::to_string(Value::from_vector<std::int32_t>({7}, {1})) == "[7]");
  CHECK(symflow::to_string(Value::from_vector<std::int32_t>({0, 0, 0, 0, 0, 0, 0, 0}, {2, 4})) ==
        "[[0 0 0 0]\n [0 0 0 0]]");
  CHECK(symflow::to_string(ramp<std::int32_t>({2, 3, 4}, 1.0, 0.0, 1.0)) ==
        "[[[ 0  1  2  3]\n  [ 4  5  6  7]\n  [ 8  9 10 11]]\n\n [[12 13 14 15]\n  [16 17 18 19]\n  "
        "[20 21 22 23]]]");
  CHECK(symflow::to_string(ramp<std::int64_t>({2, 2, 1, 3}, 1.0, 0.0, 1.0)) ==
        "[[[[ 0  1  2]]\n\n  [[ 3  4  5]]]\n\n\n [[[ 6  7  8]]\n\n  [[ 9 10 11]]]]");
}

TEST_CASE("core/value_print: float arrays share one positional layout") {
  CHECK(symflow::to_string(Value::from_vector<float>({6.0f, 7.0f, 8.0f}, {3})) == "[6. 7. 8.]");
  CHECK(symflow::to_string(Value::from_vector<float>({1.5f, 2.25f}, {2})) == "[1.5  2.25]");
  CHECK(symflow::to_string(Value::from_vector<float>({-1.5f, 2.0f, 3.25f}, {3})) ==
        "[-1.5   2.    3.25]");
  CHECK(symflow::to_string(Value::from_vector<float>({0.1f}, {1})) == "[0.1]");
  CHECK(symflow::to_string(Value::from_vector<float>({0.1f, 0.2f, 0.3f}, {3})) == "[0.1 0.2 0.3]");
  CHECK(symflow::to_string(Value::from_vector<float>({0.33333334f, 0.6666667f}, {2})) ==
        "[0.33333334 0.6666667 ]");
  CHECK(symflow::to_string(Value::from_vector<float>({-0.0f, 1.0f}, {2})) == "[-0.  1.]");
  CHECK(symflow::to_string(Value::from_vector<float>({0.0f, 0.0f}, {2})) == "[0. 0.]");
  CHECK(symflow::to_string(Value::from_vector<float>({1.5f, -20.25f, 3.0f, 4.0f}, {2, 2})) ==
        "[[  1.5  -20.25]\n [  3.     4.  ]]");
  CHECK(symflow::to_string(Value::from_vector<float>({10000000.0f, 1.0f}, {2})) ==
        "[1.e+07 1.e+00]");
  CHECK(symflow::to_string(Value::from_vector<float>({1000.0f, 1.0f}, {2})) == "[1000.    1.]");
  CHECK(symflow::to_string(Value::from_vector<float>({1e-04f, 0.1f}, {2})) == "[1.e-04 1.e-01]");
  CHECK(symflow::to_string(Value::from_vector<float>({1e-04f, 0.01f}, {2})) == "[0.0001 0.01  ]");
  CHECK(symflow::to_string(Value::from_vector<float>({0.00011f, 0.011f}, {2})) ==
        "[0.00011 0.011  ]");
  CHECK(symflow::to_string(Value::from_vector<float>({123.456f, -0.001f}, {2})) ==
        "[ 1.23456e+02 -1.00000e-03]");
  CHECK(symflow::to_string(Value::from_vector<float>({1.0f, 2.0f, 3.0f, 4.0f}, {2, 2})) ==
        "[[1. 2.]\n [3. 4.]]");
}

TEST_CASE("core/value_print: scientific notation for tiny, huge or wide-ranging values") {
  CHECK(symflow::to_string(Value::from_vector<float>({1e-05f, 1000000000.0f}, {2})) ==
        "[1.e-05 1.e+09]");
  CHECK(symflow::to_string(Value::from_vector<float>({1e-05f, 1.0f}, {2})) == "[1.e-05 1.e+00]");
  CHECK(symflow::to_string(Value::from_vector<float>({1.5e-05f, 2.0f, 3.0f}, {3})) ==
        "[1.5e-05 2.0e+00 3.0e+00]");
  CHECK(symflow::to_string(Value::from_vector<float>({100000000.0f, 1.0f}, {2})) ==
        "[1.e+08 1.e+00]");
  CHECK(symflow::to_string(Value::from_vector<float>({1.0f, 1001.0f}, {2})) ==
        "[1.000e+00 1.001e+03]");
  CHECK(symflow::to_string(Value::from_vector<float>({-1e-05f, 123456.7f}, {2})) ==
        "[-1.000000e-05  1.234567e+05]");
  CHECK(symflow::to_string(Value::from_vector<float>({0.0f, 1e-07f}, {2})) == "[0.e+00 1.e-07]");
  CHECK(symflow::to_string(Value::from_vector<float>({1e-05f, kNanF}, {2})) == "[1.e-05    nan]");
  CHECK(symflow::to_string(Value::from_vector<double>({1e-100, 1.0}, {2})) == "[1.e-100 1.e+000]");
  CHECK(symflow::to_string(Value::from_vector<double>({123456789.123, 1.0}, {2})) ==
        "[1.23456789e+08 1.00000000e+00]");
  CHECK(symflow::to_string(Value::from_vector<double>({1e+20, -0.0025, 0.0}, {3})) ==
        "[ 1.0e+20 -2.5e-03  0.0e+00]");
}

TEST_CASE("core/value_print: nan and inf are padded to the column width") {
  CHECK(symflow::to_string(Value::from_vector<float>({kNanF, kInfF, -kInfF, 1.5f}, {4})) ==
        "[ nan  inf -inf  1.5]");
  CHECK(symflow::to_string(Value::from_vector<float>({kNanF, 1.0f}, {2})) == "[nan  1.]");
  CHECK(symflow::to_string(Value::from_vector<float>({kNanF, kInfF}, {2})) == "[nan inf]");
  CHECK(symflow::to_string(Value::from_vector<float>({kNanF, -kInfF}, {2})) == "[ nan -inf]");
  CHECK(symflow::to_string(Value::from_vector<float>({-kInfF, 1e-05f}, {2})) == "[  -inf 1.e-05]");
  CHECK(symflow::to_string(Value::from_vector<float>({kNanF, 1.5f, 100.0f}, {3})) ==
        "[  nan   1.5 100. ]");
  CHECK(symflow::to_string(Value::from_vector<float>({kInfF}, {1})) == "[inf]");
  CHECK(symflow::to_string(Value::from_vector<double>({kNan, 0.25}, {2})) == "[ nan 0.25]");
}

TEST_CASE("core/value_print: float64 arrays print at most 8 fraction digits") {
  CHECK(symflow::to_string(Value::from_vector<double>({0.3333333333333333, 0.6666666666666666},
                                                      {2})) == "[0.33333333 0.66666667]");
  CHECK(symflow::to_string(Value::from_vector<double>({0.1, 0.2}, {2})) == "[0.1 0.2]");
  CHECK(symflow::to_string(Value::from_vector<double>({0.123456789012, 1.0}, {2})) ==
        "[0.12345679 1.        ]");
  CHECK(symflow::to_string(Value::from_vector<double>({1e-05, 1.0}, {2})) == "[1.e-05 1.e+00]");
  CHECK(symflow::to_string(Value::from_vector<double>({2.5, -1.0}, {2})) == "[ 2.5 -1. ]");
  CHECK(symflow::to_string(Value::from_vector<double>({0.5, 1000.0, -7.0, 0.125}, {2, 2})) ==
        "[[ 5.00e-01  1.00e+03]\n [-7.00e+00  1.25e-01]]");
}

TEST_CASE("core/value_print: bool arrays print ' True' and 'False'") {
  CHECK(symflow::to_string(Value::from_vector<bool>({true, false}, {2})) == "[ True False]");
  CHECK(symflow::to_string(Value::from_vector<bool>({true, true}, {2})) == "[ True  True]");
  CHECK(symflow::to_string(Value::from_vector<bool>({false}, {1})) == "[False]");
  CHECK(symflow::to_string(Value::from_vector<bool>({true, false, false, true}, {2, 2})) ==
        "[[ True False]\n [False  True]]");
}

TEST_CASE("core/value_print: arrays of rank 3 and more separate blocks with blank lines") {
  CHECK(symflow::to_string(ramp<float>({2, 2, 2}, 1, 0, 4)) ==
        "[[[0.   0.25]\n  [0.5  0.75]]\n\n [[1.   1.25]\n  [1.5  1.75]]]");
  CHECK(symflow::to_string(ramp<std::int32_t>({2, 2, 2, 2}, 1.0, 0.0, 1.0)) ==
        "[[[[ 0  1]\n   [ 2  3]]\n\n  [[ 4  5]\n   [ 6  7]]]\n\n\n [[[ 8  9]\n   [10 11]]\n\n  "
        "[[12 13]\n   [14 15]]]]");
  CHECK(symflow::to_string(ramp<float>({3, 1, 2}, 1.5, -3, 1.0)) ==
        "[[[-3.  -1.5]]\n\n [[ 0.   1.5]]\n\n [[ 3.   4.5]]]");
  CHECK(symflow::to_string(Value::from_vector<bool>({true, false, false, true}, {2, 2, 1})) ==
        "[[[ True]\n  [False]]\n\n [[False]\n  [ True]]]");
}

TEST_CASE("core/value_print: long rows wrap at 75 characters") {
  CHECK(symflow::to_string(ramp<float>({30}, 1, 0, 7)) ==
        "[0.         0.14285715 0.2857143  0.42857143 0.5714286  0.71428573\n 0.85714287 1.        "
        " 1.1428572  1.2857143  1.4285715  1.5714285\n 1.7142857  1.8571428  2.         2.142857   "
        "2.2857144  2.4285715\n 2.5714285  2.7142856  2.857143   3.         3.142857   3.2857144\n "
        "3.4285715  3.5714285  3.7142856  3.857143   4.         4.142857  ]");
  CHECK(symflow::to_string(ramp<float>({30}, 1, 0, 10)) ==
        "[0.  0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1.  1.1 1.2 1.3 1.4 1.5 1.6 1.7\n 1.8 1.9 2.  "
        "2.1 2.2 2.3 2.4 2.5 2.6 2.7 2.8 2.9]");
  CHECK(symflow::to_string(ramp<std::int32_t>({40}, 1000, 0.0, 1.0)) ==
        "[    0  1000  2000  3000  4000  5000  6000  7000  8000  9000 10000 11000\n 12000 13000 "
        "14000 15000 16000 17000 18000 19000 20000 21000 22000 23000\n 24000 25000 26000 27000 "
        "28000 29000 30000 31000 32000 33000 34000 35000\n 36000 37000 38000 39000]");
  CHECK(symflow::to_string(ramp<float>({2, 20}, 1, 0, 7)) ==
        "[[0.         0.14285715 0.2857143  0.42857143 0.5714286  0.71428573\n  0.85714287 1.      "
        "   1.1428572  1.2857143  1.4285715  1.5714285\n  1.7142857  1.8571428  2.         "
        "2.142857   2.2857144  2.4285715\n  2.5714285  2.7142856 ]\n [2.857143   3.         "
        "3.142857   3.2857144  3.4285715  3.5714285\n  3.7142856  3.857143   4.         4.142857   "
        "4.285714   4.428571\n  4.571429   4.714286   4.857143   5.         5.142857   5.285714\n  "
        "5.428571   5.571429  ]]");
  CHECK(symflow::to_string(ramp<double>({25}, 1, 0, 3)) ==
        "[0.         0.33333333 0.66666667 1.         1.33333333 1.66666667\n 2.         "
        "2.33333333 2.66666667 3.         3.33333333 3.66666667\n 4.         4.33333333 4.66666667 "
        "5.         5.33333333 5.66666667\n 6.         6.33333333 6.66666667 7.         7.33333333 "
        "7.66666667\n 8.        ]");
  CHECK(symflow::to_string(ramp<std::int64_t>({3, 30}, 1, -45, 1.0)) ==
        "[[-45 -44 -43 -42 -41 -40 -39 -38 -37 -36 -35 -34 -33 -32 -31 -30 -29 -28\n  -27 -26 -25 "
        "-24 -23 -22 -21 -20 -19 -18 -17 -16]\n [-15 -14 -13 -12 -11 -10  -9  -8  -7  -6  -5  -4  "
        "-3  -2  -1   0   1   2\n    3   4   5   6   7   8   9  10  11  12  13  14]\n [ 15  16  17 "
        " 18  19  20  21  22  23  24  25  26  27  28  29  30  31  32\n   33  34  35  36  37  38  "
        "39  40  41  42  43  44]]");
  CHECK(symflow::to_string(ramp<bool>({40}, 1, 0, 1)) ==
        "[False  True  True  True  True  True  True  True  True  True  True  True\n  True  True  "
        "True  True  True  True  True  True  True  True  True  True\n  True  True  True  True  "
        "True  True  True  True  True  True  True  True\n  True  True  True  True]");
  CHECK(symflow::to_string(ramp<float>({2, 2, 16}, 1, 0, 9)) ==
        "[[[0.         0.11111111 0.22222222 0.33333334 0.44444445 0.5555556\n   0.6666667  "
        "0.7777778  0.8888889  1.         1.1111112  1.2222222\n   1.3333334  1.4444444  1.5555556 "
        " 1.6666666 ]\n  [1.7777778  1.8888888  2.         2.1111112  2.2222223  2.3333333\n   "
        "2.4444444  2.5555556  2.6666667  2.7777777  2.8888888  3.\n   3.1111112  3.2222223  "
        "3.3333333  3.4444444 ]]\n\n [[3.5555556  3.6666667  3.7777777  3.8888888  4.         "
        "4.111111\n   4.2222223  4.3333335  4.4444447  4.5555553  4.6666665  4.7777777\n   "
        "4.888889   5.         5.111111   5.2222223 ]\n  [5.3333335  5.4444447  5.5555553  "
        "5.6666665  5.7777777  5.888889\n   6.         6.111111   6.2222223  6.3333335  6.4444447  "
        "6.5555553\n   6.6666665  6.7777777  6.888889   7.        ]]]");
}

TEST_CASE("core/value_print: more than 1000 elements are summarised with '...'") {
  CHECK(symflow::to_string(ramp<std::int32_t>({2000}, 1.0, 0.0, 1.0)) ==
        "[   0    1    2 ... 1997 1998 1999]");
  CHECK(symflow::to_string(ramp<float>({1001}, 1, 0, 3)) ==
        "[  0.           0.33333334   0.6666667  ... 332.66666    333.\n 333.33334   ]");
  CHECK(symflow::to_string(ramp<float>({40, 40}, 1, 0, 4)) ==
        "[[0.0000e+00 2.5000e-01 5.0000e-01 ... 9.2500e+00 9.5000e+00 9.7500e+00]\n [1.0000e+01 "
        "1.0250e+01 1.0500e+01 ... 1.9250e+01 1.9500e+01 1.9750e+01]\n [2.0000e+01 2.0250e+01 "
        "2.0500e+01 ... 2.9250e+01 2.9500e+01 2.9750e+01]\n ...\n [3.7000e+02 3.7025e+02 "
        "3.7050e+02 ... 3.7925e+02 3.7950e+02 3.7975e+02]\n [3.8000e+02 3.8025e+02 3.8050e+02 ... "
        "3.8925e+02 3.8950e+02 3.8975e+02]\n [3.9000e+02 3.9025e+02 3.9050e+02 ... 3.9925e+02 "
        "3.9950e+02 3.9975e+02]]");
  CHECK(symflow::to_string(ramp<std::int32_t>({11, 11, 11}, 1.0, 0.0, 1.0)) ==
        "[[[   0    1    2 ...    8    9   10]\n  [  11   12   13 ...   19   20   21]\n  [  22   "
        "23   24 ...   30   31   32]\n  ...\n  [  88   89   90 ...   96   97   98]\n  [  99  100  "
        "101 ...  107  108  109]\n  [ 110  111  112 ...  118  119  120]]\n\n [[ 121  122  123 ...  "
        "129  130  131]\n  [ 132  133  134 ...  140  141  142]\n  [ 143  144  145 ...  151  152  "
        "153]\n  ...\n  [ 209  210  211 ...  217  218  219]\n  [ 220  221  222 ...  228  229  "
        "230]\n  [ 231  232  233 ...  239  240  241]]\n\n [[ 242  243  244 ...  250  251  252]\n  "
        "[ 253  254  255 ...  261  262  263]\n  [ 264  265  266 ...  272  273  274]\n  ...\n  [ "
        "330  331  332 ...  338  339  340]\n  [ 341  342  343 ...  349  350  351]\n  [ 352  353  "
        "354 ...  360  361  362]]\n\n ...\n\n [[ 968  969  970 ...  976  977  978]\n  [ 979  980  "
        "981 ...  987  988  989]\n  [ 990  991  992 ...  998  999 1000]\n  ...\n  [1056 1057 1058 "
        "... 1064 1065 1066]\n  [1067 1068 1069 ... 1075 1076 1077]\n  [1078 1079 1080 ... 1086 "
        "1087 1088]]\n\n [[1089 1090 1091 ... 1097 1098 1099]\n  [1100 1101 1102 ... 1108 1109 "
        "1110]\n  [1111 1112 1113 ... 1119 1120 1121]\n  ...\n  [1177 1178 1179 ... 1185 1186 "
        "1187]\n  [1188 1189 1190 ... 1196 1197 1198]\n  [1199 1200 1201 ... 1207 1208 1209]]\n\n "
        "[[1210 1211 1212 ... 1218 1219 1220]\n  [1221 1222 1223 ... 1229 1230 1231]\n  [1232 1233 "
        "1234 ... 1240 1241 1242]\n  ...\n  [1298 1299 1300 ... 1306 1307 1308]\n  [1309 1310 1311 "
        "... 1317 1318 1319]\n  [1320 1321 1322 ... 1328 1329 1330]]]");
  CHECK(symflow::to_string(ramp<float>({1001}, 1, 0, 1)) ==
        "[   0.    1.    2. ...  998.  999. 1000.]");
  CHECK(symflow::to_string(ramp<std::int64_t>({2, 600}, 1, -600, 1.0)) ==
        "[[-600 -599 -598 ...   -3   -2   -1]\n [   0    1    2 ...  597  598  599]]");
  CHECK(
      symflow::to_string(ramp<float>({4, 300}, 1, 0, 1)) ==
      "[[0.000e+00 1.000e+00 2.000e+00 ... 2.970e+02 2.980e+02 2.990e+02]\n [3.000e+02 3.010e+02 "
      "3.020e+02 ... 5.970e+02 5.980e+02 5.990e+02]\n [6.000e+02 6.010e+02 6.020e+02 ... 8.970e+02 "
      "8.980e+02 8.990e+02]\n [9.000e+02 9.010e+02 9.020e+02 ... 1.197e+03 1.198e+03 1.199e+03]]");
  CHECK(symflow::to_string(ramp<bool>({1001}, 1, 0, 1)) ==
        "[False  True  True ...  True  True  True]");
  CHECK(symflow::to_string(with_middle(ramp<float>({1001}, 1, 0, 4), 500, 1e9f)) ==
        "[  0.     0.25   0.5  ... 249.5  249.75 250.  ]");
}

TEST_CASE("core/value_print: empty arrays print []") {
  CHECK(symflow::to_string(Value::from_vector<float>({}, {0})) == "[]");
  CHECK(symflow::to_string(Value::from_vector<float>({}, {2, 0})) == "[]");
  CHECK(symflow::to_string(Value::from_vector<std::int32_t>({}, {0, 3})) == "[]");
  CHECK(symflow::to_string(Value::from_vector<bool>({}, {0})) == "[]");
}

TEST_CASE("core/value_print: scalars print like NumPy 1.x scalars") {
  CHECK(symflow::to_string(Value(3.0f)) == "3.0");
  CHECK(symflow::to_string(Value(3)) == "3");
  CHECK(symflow::to_string(Value(true)) == "True");
  CHECK(symflow::to_string(Value(false)) == "False");
  CHECK(symflow::to_string(Value(0.1f)) == "0.1");
  CHECK(symflow::to_string(Value(0.1)) == "0.1");
  CHECK(symflow::to_string(Value(0.33333334f)) == "0.33333334");
  CHECK(symflow::to_string(Value(0.3333333333333333)) == "0.3333333333333333");
  CHECK(symflow::to_string(Value(1e-05f)) == "1e-05");
  CHECK(symflow::to_string(Value(1e-04f)) == "1e-04");
  CHECK(symflow::to_string(Value(0.0001)) == "0.0001");
  CHECK(symflow::to_string(Value(1e+16f)) == "1e+16");
  CHECK(symflow::to_string(Value(1e+16)) == "1e+16");
  CHECK(symflow::to_string(Value(9999000000000000.0f)) == "9999000000000000.0");
  CHECK(symflow::to_string(Value(12345678.0f)) == "12345678.0");
  CHECK(symflow::to_string(Value(1e+22)) == "1e+22");
  CHECK(symflow::to_string(Value(-0.0f)) == "-0.0");
  CHECK(symflow::to_string(Value(kNanF)) == "nan");
  CHECK(symflow::to_string(Value(-kInf)) == "-inf");
  CHECK(symflow::to_string(Value(-2.5)) == "-2.5");
  CHECK(symflow::to_string(Value(std::uint8_t{255})) == "255");
  CHECK(symflow::to_string(Value(std::int64_t{-9000000000})) == "-9000000000");
  CHECK(symflow::to_string(Value(1.5e-300)) == "1.5e-300");
}

TEST_CASE("core/value_print: repr() adds array( and the dtype NumPy does not imply") {
  CHECK(symflow::repr(Value::from_vector<float>({1.0f, 1.0f, 1.0f, 1.0f}, {2, 2})) ==
        "array([[1., 1.],\n       [1., 1.]], dtype=float32)");
  CHECK(symflow::repr(Value::from_vector<float>({2.0f, 2.0f, 2.0f, 2.0f}, {2, 2})) ==
        "array([[2., 2.],\n       [2., 2.]], dtype=float32)");
  CHECK(symflow::repr(Value::from_vector<std::int64_t>({1, 2}, {2})) == "array([1, 2])");
  CHECK(symflow::repr(Value::from_vector<std::int32_t>({1, 2}, {2})) ==
        "array([1, 2], dtype=int32)");
  CHECK(symflow::repr(Value::from_vector<double>({0.5, 1.0}, {2})) == "array([0.5, 1. ])");
  CHECK(symflow::repr(Value::from_vector<bool>({true, false}, {2})) == "array([ True, False])");
  CHECK(symflow::repr(Value::from_vector<std::uint8_t>({std::uint8_t{1}, std::uint8_t{200}},
                                                       {2})) == "array([  1, 200], dtype=uint8)");
  CHECK(symflow::repr(Value::from_vector<float>({1e-05f, 1000000000.0f}, {2})) ==
        "array([1.e-05, 1.e+09], dtype=float32)");
  CHECK(symflow::repr(Value::from_vector<float>({kNanF, 1.5f}, {2})) ==
        "array([nan, 1.5], dtype=float32)");
  CHECK(symflow::repr(Value::from_vector<double>({}, {0})) == "array([], dtype=float64)");
  CHECK(symflow::repr(Value::from_vector<float>({}, {0})) == "array([], dtype=float32)");
  CHECK(symflow::repr(Value::from_vector<float>({}, {2, 0})) ==
        "array([], shape=(2, 0), dtype=float32)");
  CHECK(symflow::repr(Value::from_vector<std::int64_t>({}, {0, 3})) ==
        "array([], shape=(0, 3), dtype=int64)");
  CHECK(symflow::repr(ramp<float>({30}, 1, 0, 7)) ==
        "array([0.        , 0.14285715, 0.2857143 , 0.42857143, 0.5714286 ,\n       0.71428573, "
        "0.85714287, 1.        , 1.1428572 , 1.2857143 ,\n       1.4285715 , 1.5714285 , 1.7142857 "
        ", 1.8571428 , 2.        ,\n       2.142857  , 2.2857144 , 2.4285715 , 2.5714285 , "
        "2.7142856 ,\n       2.857143  , 3.        , 3.142857  , 3.2857144 , 3.4285715 ,\n       "
        "3.5714285 , 3.7142856 , 3.857143  , 4.        , 4.142857  ],\n      dtype=float32)");
  CHECK(symflow::repr(ramp<double>({30}, 1, 0, 7)) ==
        "array([0.        , 0.14285714, 0.28571429, 0.42857143, 0.57142857,\n       0.71428571, "
        "0.85714286, 1.        , 1.14285714, 1.28571429,\n       1.42857143, 1.57142857, "
        "1.71428571, 1.85714286, 2.        ,\n       2.14285714, 2.28571429, 2.42857143, "
        "2.57142857, 2.71428571,\n       2.85714286, 3.        , 3.14285714, 3.28571429, "
        "3.42857143,\n       3.57142857, 3.71428571, 3.85714286, 4.        , 4.14285714])");
  CHECK(symflow::repr(ramp<std::int32_t>({2000}, 1.0, 0.0, 1.0)) ==
        "array([   0,    1,    2, ..., 1997, 1998, 1999], dtype=int32)");
  CHECK(symflow::repr(ramp<std::int64_t>({2000}, 1.0, 0.0, 1.0)) ==
        "array([   0,    1,    2, ..., 1997, 1998, 1999])");
  CHECK(symflow::repr(ramp<float>({2, 2, 3}, 1, 0, 2)) ==
        "array([[[0. , 0.5, 1. ],\n        [1.5, 2. , 2.5]],\n\n       [[3. , 3.5, 4. ],\n        "
        "[4.5, 5. , 5.5]]], dtype=float32)");
  CHECK(symflow::repr(ramp<float>({12}, 1, 0, 7)) ==
        "array([0.        , 0.14285715, 0.2857143 , 0.42857143, 0.5714286 ,\n       0.71428573, "
        "0.85714287, 1.        , 1.1428572 , 1.2857143 ,\n       1.4285715 , 1.5714285 ], "
        "dtype=float32)");
  CHECK(symflow::repr(ramp<float>({13}, 1, 0, 7)) ==
        "array([0.        , 0.14285715, 0.2857143 , 0.42857143, 0.5714286 ,\n       0.71428573, "
        "0.85714287, 1.        , 1.1428572 , 1.2857143 ,\n       1.4285715 , 1.5714285 , 1.7142857 "
        "], dtype=float32)");
  CHECK(symflow::repr(ramp<float>({11}, 1, 0, 7)) ==
        "array([0.        , 0.14285715, 0.2857143 , 0.42857143, 0.5714286 ,\n       0.71428573, "
        "0.85714287, 1.        , 1.1428572 , 1.2857143 ,\n       1.4285715 ], dtype=float32)");
  CHECK(symflow::repr(ramp<std::int32_t>({3, 25}, 1000, 0.0, 1.0)) ==
        "array([[    0,  1000,  2000,  3000,  4000,  5000,  6000,  7000,  8000,\n         9000, "
        "10000, 11000, 12000, 13000, 14000, 15000, 16000, 17000,\n        18000, 19000, 20000, "
        "21000, 22000, 23000, 24000],\n       [25000, 26000, 27000, 28000, 29000, 30000, 31000, "
        "32000, 33000,\n        34000, 35000, 36000, 37000, 38000, 39000, 40000, 41000, 42000,\n   "
        "     43000, 44000, 45000, 46000, 47000, 48000, 49000],\n       [50000, 51000, 52000, "
        "53000, 54000, 55000, 56000, 57000, 58000,\n        59000, 60000, 61000, 62000, 63000, "
        "64000, 65000, 66000, 67000,\n        68000, 69000, 70000, 71000, 72000, 73000, 74000]], "
        "dtype=int32)");
  CHECK(
      symflow::repr(ramp<float>({40, 40}, 1, 0, 4)) ==
      "array([[0.0000e+00, 2.5000e-01, 5.0000e-01, ..., 9.2500e+00, 9.5000e+00,\n        "
      "9.7500e+00],\n       [1.0000e+01, 1.0250e+01, 1.0500e+01, ..., 1.9250e+01, 1.9500e+01,\n    "
      "    1.9750e+01],\n       [2.0000e+01, 2.0250e+01, 2.0500e+01, ..., 2.9250e+01, "
      "2.9500e+01,\n        2.9750e+01],\n       ...,\n       [3.7000e+02, 3.7025e+02, 3.7050e+02, "
      "..., 3.7925e+02, 3.7950e+02,\n        3.7975e+02],\n       [3.8000e+02, 3.8025e+02, "
      "3.8050e+02, ..., 3.8925e+02, 3.8950e+02,\n        3.8975e+02],\n       [3.9000e+02, "
      "3.9025e+02, 3.9050e+02, ..., 3.9925e+02, 3.9950e+02,\n        3.9975e+02]], dtype=float32)");
  CHECK(symflow::repr(Value(3.0f)) == "3.0");
  CHECK(symflow::repr(Value(3)) == "3");
  CHECK(symflow::repr(Value(true)) == "True");
  CHECK(symflow::repr(Value(0.1f)) == "0.1");
  CHECK(symflow::repr(Value(1e-05)) == "1e-05");
  CHECK(symflow::repr(Value(kNanF)) == "nan");
  CHECK(symflow::repr(Value(std::uint8_t{7})) == "7");
  CHECK(symflow::repr(Value(-1)) == "-1");
}

TEST_CASE("core/value_print: operator<< writes the str() form") {
  std::ostringstream os;
  os << Value{{1, 1, 0, 0}, {1, 0, 4, 0}};
  CHECK(os.str() == "[[1 1 0 0]\n [1 0 4 0]]");
  std::ostringstream scalar;
  scalar << Value(3.0f);
  CHECK(scalar.str() == "3.0");
}

TEST_CASE("core/value_print: an empty Value (a fetched operation) prints None") {
  CHECK(symflow::to_string(Value()) == "None");
  CHECK(symflow::repr(Value()) == "None");
}

TEST_CASE("core/value_print: a list of values prints like Python's print(sess.run([...]))") {
  // The tutorial's sess.run([a, b, c]) of three float32 scalars.
  CHECK(symflow::to_string(std::vector<Value>{Value(1.0f), Value(2.0f), Value(3.0f)}) ==
        "[1.0, 2.0, 3.0]");
  CHECK(symflow::to_string(std::vector<Value>{Value(1.0f), Value(0.0f), Value(1.0f)}) ==
        "[1.0, 0.0, 1.0]");
  // Arrays in a list are shown by repr(), continuation lines aligned under "array(".
  Value a = Value::filled<float>({2, 2}, 1.0f);
  Value b = Value::filled<float>({2, 2}, 2.0f);
  CHECK(symflow::to_string(std::vector<Value>{a, b}) ==
        "[array([[1., 1.],\n       [1., 1.]], dtype=float32), array([[2., 2.],\n       [2., "
        "2.]], dtype=float32)]");
  CHECK(symflow::to_string(std::vector<Value>{Value{1, 2}, Value(), Value(std::int64_t{5}),
                                              Value(0.1), Value(false)}) ==
        "[array([1, 2], dtype=int32), None, 5, 0.1, False]");
  CHECK(symflow::to_string(std::vector<Value>{}) == "[]");
  std::ostringstream os;
  os << std::vector<Value>{Value(1.0f), Value(2.0f), Value(3.0f)};
  CHECK(os.str() == "[1.0, 2.0, 3.0]");
}

TEST_CASE("core/value_print: only the shown elements of a summarised array set the widths") {
  // 2000 zeros with one wide value in the middle: the hidden value changes nothing.
  Value v = Value::filled<std::int32_t>({2000}, 0);
  v.data<std::int32_t>()[1000] = -123456;
  CHECK(symflow::to_string(v) == "[0 0 0 ... 0 0 0]");
  v.data<std::int32_t>()[1999] = -123456;
  CHECK(symflow::to_string(v) == "[      0       0       0 ...       0       0 -123456]");
}

TEST_CASE("detail/float_repr: python_float_repr matches Python's repr(float)") {
  using symflow::detail::python_float_repr;
  CHECK(python_float_repr(1.0) == "1.0");
  CHECK(python_float_repr(0.5) == "0.5");
  CHECK(python_float_repr(1e-5) == "1e-05");
  CHECK(python_float_repr(0.0001) == "0.0001");
  CHECK(python_float_repr(9.900000000000001e-05) == "9.900000000000001e-05");
  CHECK(python_float_repr(1e16) == "1e+16");
  CHECK(python_float_repr(12345678901234567.0) == "1.2345678901234568e+16");
  CHECK(python_float_repr(123456789.0) == "123456789.0");
  CHECK(python_float_repr(1e22) == "1e+22");
  CHECK(python_float_repr(-0.0) == "-0.0");
  CHECK(python_float_repr(0.1 + 0.2) == "0.30000000000000004");
  CHECK(python_float_repr(1.5e-300) == "1.5e-300");
  CHECK(python_float_repr(5e-324) == "5e-324");
  CHECK(python_float_repr(1.7976931348623157e308) == "1.7976931348623157e+308");
  CHECK(python_float_repr(kNan) == "nan");
  CHECK(python_float_repr(kInf) == "inf");
  CHECK(python_float_repr(-kInf) == "-inf");
  // A float keeps its own shortest digits: float32(0.1) is "0.1", not 0.10000000149011612.
  CHECK(python_float_repr(0.1f) == "0.1");
  CHECK(python_float_repr(static_cast<double>(0.1f)) == "0.10000000149011612");
}

TEST_CASE("detail/float_repr: positional and scientific digits round at the cutoff") {
  using symflow::detail::positional_digits;
  using symflow::detail::scientific_digits;
  CHECK(positional_digits(6.0f) == "6.");
  CHECK(positional_digits(-0.0) == "-0.");
  CHECK(positional_digits(1.0 / 3.0, 8) == "0.33333333");
  CHECK(positional_digits(2.0 / 3.0, 8) == "0.66666667");
  CHECK(positional_digits(0.999999999, 8) == "1.");
  CHECK(positional_digits(2.5, 0) == "2.");
  CHECK(positional_digits(30.25, 0) == "30.");
  CHECK(positional_digits(1e20) == "100000000000000000000.");
  CHECK(scientific_digits(1.5e-5).mantissa == "1.5");
  CHECK(scientific_digits(1.5e-5).exponent == -5);
  CHECK(scientific_digits(123456789.123, 8).mantissa == "1.23456789");
  CHECK(scientific_digits(-9.9999999999, 8).mantissa == "-1.");
  CHECK(scientific_digits(-9.9999999999, 8).exponent == 1);
}

TEST_CASE("core/value_print: digits beyond the shortest come from the exact value") {
  // Positional: float32(34701432) has shortest digits 3470143e1, but an array shows its
  // integer part exactly; a scalar pads with zeros, as Python's repr does.
  CHECK(symflow::to_string(Value{-34701432.0f, -40903004.0f}) == "[-34701432. -40903004.]");
  CHECK(symflow::to_string(Value(34701432.0f)) == "34701430.0");
  // Scientific: every mantissa is extended to the widest one's digits with the exact
  // value's digits (-5.919568e-05 is float32 -5.91956807...e-05), not with zeros.
  CHECK(symflow::to_string(Value{-5.919568e-05f, -436551.62f}) ==
        "[-5.9195681e-05 -4.3655162e+05]");
  CHECK(symflow::to_string(Value{16777216.0f, 0.5f}) == "[1.6777216e+07 5.0000000e-01]");
  // Positional: an element needing more than 8 fraction digits is rounded to 8.
  CHECK(symflow::to_string(Value{0.1f, 0.00012345679f}) == "[0.1        0.00012346]");
}

}  // namespace symflow_test_core_value_print_test
