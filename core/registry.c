/* core/registry.c -- the registry: every room's table of algorithms, in
 * the order the build lists the rooms, then the algorithms registered at
 * run time (tl_register).
 *
 * The core names no algorithm. Each backend room defines one tl_room
 * (reference/registry_ref.c, optimized/cpu/registry_cpu.c, ...); the
 * Makefile writes the list of the rooms it built into a generated file
 * (tl_built_rooms, scripts/gen-rooms.sh), so a new backend joins the
 * registry by adding its room to the build, without editing any other
 * room.
 */
#include <pthread.h>
#include <string.h>

#include "tridlab/backend.h"
#include "tridlab/registry.h"

/* The generated list of the rooms this build holds. */
extern const tl_room *const tl_built_rooms[];
extern const size_t tl_built_room_count;

static const tl_algorithm *table[TL_REGISTRY_MAX];
static size_t table_count;
/* The entries with a reference, resolved: table[] points at these. */
static tl_algorithm resolved[TL_REGISTRY_MAX];

#define INHERIT(field)                                                                             \
  do {                                                                                             \
    if (!view->field)                                                                              \
      view->field = ref->field;                                                                    \
  } while (0)

/* Not inherited: the ledger model, since what a backend sends is its own
 * (a GPU kernel's partitions exchange nothing; an MPI rank program
 * records its real messages against the reference's model itself). */
const tl_algorithm *tl_algorithm_resolve(const tl_algorithm *algo, tl_algorithm *view)
{
  if (!algo || !algo->reference)
    return algo;
  tl_algorithm base;
  const tl_algorithm *ref = tl_algorithm_resolve(algo->reference, &base); /* a chain */
  *view = *algo;
  INHERIT(family);
  INHERIT(exact);
  INHERIT(classes);
  INHERIT(dtypes);
  INHERIT(layouts);
  INHERIT(partitioned);
  INHERIT(min_rows_per_part);
  if (!view->params && !view->nparams) {
    view->params = ref->params;
    view->nparams = ref->nparams;
  }
  INHERIT(summary);
  INHERIT(source);
  INHERIT(dropped_means);
  INHERIT(bound_means);
  return view;
}

#undef INHERIT

/* The table's entry for algo: itself, or its resolved copy in slot k. */
static const tl_algorithm *entry(const tl_algorithm *algo, size_t k)
{
  return tl_algorithm_resolve(algo, &resolved[k]);
}
static pthread_once_t assembled = PTHREAD_ONCE_INIT;
static pthread_mutex_t register_lock = PTHREAD_MUTEX_INITIALIZER;

static void assemble(void)
{
  for (size_t r = 0; r < tl_built_room_count; r++) {
    const tl_room *room = tl_built_rooms[r];
    for (size_t k = 0; k < room->count && table_count < TL_REGISTRY_MAX; k++, table_count++)
      table[table_count] = entry(room->algorithms[k], table_count);
  }
}

const tl_algorithm *const *tl_registry(size_t *count)
{
  pthread_once(&assembled, assemble);
  if (count) {
    pthread_mutex_lock(&register_lock);
    *count = table_count;
    pthread_mutex_unlock(&register_lock);
  }
  return table;
}

const tl_algorithm *tl_find(const char *name)
{
  size_t n;
  const tl_algorithm *const *reg = tl_registry(&n);
  if (!name)
    return NULL;
  for (size_t i = 0; i < n; i++)
    if (strcmp(reg[i]->name, name) == 0)
      return reg[i];
  return NULL;
}

/* The rooms added at run time (tl_register_room). */
#define MAX_ADDED_ROOMS 8
static const tl_room *added_rooms[MAX_ADDED_ROOMS];
static size_t added_room_count;

static int room_holds(const tl_room *room, const tl_algorithm *algo)
{
  for (size_t k = 0; k < room->count; k++)
    if (room->algorithms[k] == algo || (algo && !strcmp(room->algorithms[k]->name, algo->name)))
      return 1; /* the descriptor, or the registry's resolved copy */
  return 0;
}

const char *tl_algorithm_room(const tl_algorithm *algo)
{
  for (size_t r = 0; r < tl_built_room_count; r++)
    if (room_holds(tl_built_rooms[r], algo))
      return tl_built_rooms[r]->name;
  pthread_mutex_lock(&register_lock);
  const char *name = "registered";
  for (size_t r = 0; r < added_room_count; r++)
    if (room_holds(added_rooms[r], algo))
      name = added_rooms[r]->name;
  pthread_mutex_unlock(&register_lock);
  return name;
}

/* What every entry must have before the drivers may call it. */
static int check_descriptor(const tl_algorithm *algo, tl_info *info)
{
  if (!algo)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "algo", "tl_register: no algorithm given");
  if (!algo->name || !algo->name[0] || strlen(algo->name) > 63)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "name",
                   "tl_register: an algorithm needs a name of 1 to 63 characters");
  if (!algo->solve)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "solve", "tl_register: %s has no solve function",
                   algo->name);
  if (!algo->family || !algo->backend || !algo->summary || !algo->source)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "algo",
                   "tl_register: %s must give family, backend, summary and source", algo->name);
  if (!(algo->dtypes & (TL_DTYPE_BIT(TL_F64) | TL_DTYPE_BIT(TL_C128))))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "dtypes", "tl_register: %s solves no dtype",
                   algo->name);
  if (!(algo->layouts & (TL_NONPERIODIC | TL_PERIODIC)))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "layouts", "tl_register: %s solves no layout",
                   algo->name);
  if (algo->nparams < 0 || algo->nparams > TL_MAX_PARAMS || (algo->nparams && !algo->params))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "params",
                   "tl_register: %s declares %d parameters (0 to %d, with a table)", algo->name,
                   algo->nparams, TL_MAX_PARAMS);
  return TL_OK;
}

int tl_register(const tl_algorithm *algo, tl_info *info)
{
  tl_info_clear(info);
  tl_algorithm view;
  const tl_algorithm *full = tl_algorithm_resolve(algo, &view);
  TL_CALL(check_descriptor(full, info));
  pthread_once(&assembled, assemble);
  pthread_mutex_lock(&register_lock);
  int status = TL_OK;
  for (size_t i = 0; i < table_count; i++)
    if (strcmp(table[i]->name, algo->name) == 0) {
      status = TL_FAIL(info, TL_ERR_ARG, -1, -1, "name",
                       "tl_register: an algorithm named '%s' is already registered", algo->name);
      break;
    }
  if (status == TL_OK && table_count >= TL_REGISTRY_MAX)
    status = TL_FAIL(info, TL_ERR_ARG, -1, -1, "algo",
                     "tl_register: the registry is full (%d algorithms)", TL_REGISTRY_MAX);
  if (status == TL_OK) {
    table[table_count] = entry(algo, table_count);
    table_count++;
  }
  pthread_mutex_unlock(&register_lock);
  return status;
}

/* Every algorithm of a room acceptable, before any joins: a room joins
 * whole or not at all. */
static int check_room(const tl_room *room, tl_info *info)
{
  for (size_t k = 0; k < room->count; k++) {
    tl_algorithm view;
    TL_CALL(check_descriptor(tl_algorithm_resolve(room->algorithms[k], &view), info));
    if (tl_find(room->algorithms[k]->name))
      return TL_FAIL(info, TL_ERR_ARG, -1, -1, "name",
                     "tl_register_room: %s: an algorithm named '%s' is already registered",
                     room->name, room->algorithms[k]->name);
  }
  return TL_OK;
}

int tl_register_room(const tl_room *room, tl_info *info)
{
  tl_info_clear(info);
  if (!room || !room->name || (room->count && !room->algorithms))
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "room", "tl_register_room: no room given");
  pthread_mutex_lock(&register_lock);
  int known = 0;
  for (size_t r = 0; r < added_room_count; r++)
    known |= added_rooms[r] == room;
  pthread_mutex_unlock(&register_lock);
  if (!known)
    TL_CALL(check_room(room, info));
  pthread_mutex_lock(&register_lock);
  known = 0;
  for (size_t r = 0; r < added_room_count; r++)
    known |= added_rooms[r] == room;
  int full = !known && added_room_count >= MAX_ADDED_ROOMS;
  if (!known && !full)
    added_rooms[added_room_count++] = room;
  pthread_mutex_unlock(&register_lock);
  if (known)
    return TL_OK;
  if (full)
    return TL_FAIL(info, TL_ERR_ARG, -1, -1, "room", "tl_register_room: more than %d rooms",
                   MAX_ADDED_ROOMS);
  for (size_t k = 0; k < room->count; k++)
    TL_CALL(tl_register(room->algorithms[k], info));
  return TL_OK;
}
