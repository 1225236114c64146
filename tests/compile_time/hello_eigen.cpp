// The peer of the compile-time row: <Eigen/Core> and the same add.
#include <Eigen/Core>

int main() {
    Eigen::Array4f a{1, 2, 3, 4}, b{4, 3, 2, 1};
    Eigen::Array4f c = a + b;
    return static_cast<int>(c[0]) - 5;
}
