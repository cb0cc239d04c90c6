#ifndef PHOTODROP_TEST_HEAP_STATISTICS_H
#define PHOTODROP_TEST_HEAP_STATISTICS_H
#include <stddef.h>

/// Bytes the process's heap has handed out and not taken back, over every malloc arena (glibc's mallinfo2
/// `uordblks`): for tests that check that something leaves no memory behind.
size_t photodrop_test_heap_in_use(void);

#endif
