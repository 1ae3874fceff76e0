/* tests/test_rooms.c -- the registry is assembled from the rooms the build
 * holds, and an algorithm registered at run time joins it: listed, found,
 * verified. */
#include <criterion/criterion.h>
#include <string.h>

#include "tridlab/backend.h"
#include "tridlab/tridlab.h"

Test(rooms, reference_algorithms_come_first_then_the_backends)
{
  size_t count = 0;
  const tl_algorithm *const *reg = tl_registry(&count);
  cr_assert_gt(count, 0);
  int left_reference = 0;
  for (size_t k = 0; k < count; k++) {
    const char *room = tl_algorithm_room(reg[k]);
    cr_expect(strcmp(room, "registered") != 0, "%s has no room", reg[k]->name);
    if (strcmp(room, "reference") != 0)
      left_reference = 1;
    else
      cr_expect(!left_reference, "%s (reference) comes after a backend", reg[k]->name);
  }
  cr_expect_str_eq(tl_algorithm_room(tl_find("thomas")), "reference");
  cr_expect_str_eq(tl_algorithm_room(tl_find("thomas_cpu")), "cpu");
}

/* A student's solver: the reference Thomas under another name. */
static int student_solve(const tl_algorithm *self, const tl_batch *sys, void *x,
                         const tl_options *opt, tl_info *info)
{
  (void)self;
  return tl_find("thomas")->solve(tl_find("thomas"), sys, x, opt, info);
}

static const tl_algorithm student = {
    .name = "student_thomas",
    .family = "direct",
    .backend = "plug-in",
    .exact = 1,
    .classes = TL_CLASS_ROW_DD | TL_CLASS_COL_DD,
    .dtypes = TL_DTYPE_BIT(TL_F64) | TL_DTYPE_BIT(TL_C128),
    .layouts = TL_NONPERIODIC,
    .min_rows_per_part = 1,
    .summary = "Thomas, registered at run time",
    .source = "tests/test_rooms.c",
    .solve = student_solve,
};

Test(rooms, a_registered_algorithm_is_listed_found_and_verified)
{
  size_t before = 0, after = 0;
  tl_registry(&before);
  tl_info info;
  cr_assert_eq(tl_register(&student, &info), TL_OK, "%s", info.msg);
  const tl_algorithm *const *reg = tl_registry(&after);
  cr_assert_eq(after, before + 1);
  cr_expect_eq(reg[after - 1], &student);
  cr_expect_eq(tl_find("student_thomas"), &student);
  cr_expect_str_eq(tl_algorithm_room(&student), "registered");

  size_t sizes[] = {1, 2, 17};
  tl_verify_config cfg = {.sizes = sizes, .nsizes = 3, .nsys = 2, .seed = 7,
                          .algo = "student_thomas"};
  tl_verify_summary sum;
  cr_assert_eq(tl_verify_run(&cfg, &sum, &info), TL_OK, "%s", info.msg);
  cr_expect_gt(sum.passed, 0);
  cr_expect_eq(sum.silent, 0);
  cr_expect_eq(sum.unexpected, 0);
}

Test(rooms, bad_registrations_are_refused_with_the_reason)
{
  tl_info info;
  cr_expect_eq(tl_register(NULL, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "algo");

  tl_algorithm clash = student;
  clash.name = "thomas";
  cr_expect_eq(tl_register(&clash, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "name");
  cr_expect(strstr(info.msg, "already registered"), "%s", info.msg);

  tl_algorithm nosolve = student;
  nosolve.name = "nosolve";
  nosolve.solve = NULL;
  cr_expect_eq(tl_register(&nosolve, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "solve");

  tl_algorithm nodtype = student;
  nodtype.name = "nodtype";
  nodtype.dtypes = 0;
  cr_expect_eq(tl_register(&nodtype, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "dtypes");

  tl_algorithm noname = student;
  noname.name = "";
  cr_expect_eq(tl_register(&noname, &info), TL_ERR_ARG);
  cr_expect_str_eq(info.arg, "name");

  cr_expect_null(tl_find("nosolve"));
  cr_expect_null(tl_find("nodtype"));
}
