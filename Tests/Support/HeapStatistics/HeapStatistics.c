#include "HeapStatistics.h"
#include <malloc.h>

size_t photodrop_test_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks;
}
