// Sort against the reference for every element type the radix path maps (integers of each width,
// f64, f16, bf16, pred), with and without ties, along the last dimension and dimension 0.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "sort_common.hpp"

using st::diff_case;

TEST_CASE("differential: other element types") {
    for (bool ties : {false, true}) {
        diff_case<1, s32<4, 100>>(ties);
        diff_case<0, s32<100, 4>>(ties);
        diff_case<-1, u8<3, 90>>(ties);
        diff_case<0, s8<60, 3>>(ties);
        diff_case<-1, s16<2, 70>>(ties);
        diff_case<-1, u32<2, 70>>(ties);
        diff_case<0, s64<80, 2>>(ties);
        diff_case<-1, u64<3, 55>>(ties);
        diff_case<-1, f64<3, 120>>(ties);
        diff_case<0, f16<50, 3>>(ties);
        diff_case<-1, bf16<2, 64>>(ties);
        diff_case<-1, pred<3, 60>>(ties);
    }
}
