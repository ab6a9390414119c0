/*
 * What meshoptimizer's C++ needs on wasm32-unknown-unknown and the meshopt
 * crate (0.7) does not give it there. clang-wasm32 force-includes this
 * header into every file meshopt's build compiles for wasm32; the library
 * itself (md2-wgpu, `#![forbid(unsafe_code)]`) is untouched.
 *
 * That target has no C library. The meshopt crate brings a stripped-down
 * math.h that lacks six functions meshoptimizer's sources call, and the
 * default meshopt_Allocator takes the addresses of C++'s global operator
 * new and delete, which nothing on the target defines, so a final link
 * fails on _Znwm and _ZdlPv. This header supplies both:
 *
 * - the six math functions as clang builtins (floorf and ceilf are wasm
 *   instructions; log2f, frexpf, ldexpf and cosf are only called by parts
 *   of meshoptimizer md2-wgpu never calls, which the linker drops);
 * - operator new and delete over a small heap of its own: pages taken with
 *   memory.grow (which Rust's allocator also uses, so the two never share a
 *   byte), handed out as a stack. meshopt_Allocator frees its blocks in the
 *   reverse order it took them, at the end of every meshoptimizer call, so
 *   the stack empties after each call and its pages are used again by the
 *   next; a block freed out of order is reclaimed once those above it are.
 *
 * The definitions are weak and the heap's state is one weak object, so the
 * copies in every translation unit merge into one at link time.
 */
#pragma once

#if defined(__wasm32__)

#define floorf(x) __builtin_floorf(x)
#define ceilf(x) __builtin_ceilf(x)
#define log2f(x) __builtin_log2f(x)
#define frexpf(x, e) __builtin_frexpf(x, e)
#define ldexpf(x, e) __builtin_ldexpf(x, e)
#define cosf(x) __builtin_cosf(x)

#if defined(__cplusplus)

#include <stddef.h>

/* A run of pages from memory.grow; its blocks are stacked from `base`. */
struct md2_meshopt_chunk {
  md2_meshopt_chunk* next;
  char* cursor;
  char* end;
};

/* Precedes every allocation; 16 bytes, so allocations stay 16-aligned. */
struct md2_meshopt_block {
  md2_meshopt_chunk* chunk;
  md2_meshopt_block* below;
  size_t free;
  size_t pad;
};

struct md2_meshopt_heap {
  /* Every chunk, in the order taken; those after `current` are empty. */
  md2_meshopt_chunk* first;
  md2_meshopt_chunk* current;
  /* The last block handed out that is not yet popped. */
  md2_meshopt_block* top;
};

extern "C" __attribute__((weak)) md2_meshopt_heap md2_meshopt_heap_state = {0, 0, 0};

/* At least 4 MiB a chunk: a player model's simplification takes a few. */
static const size_t md2_meshopt_min_pages = 64;

__attribute__((weak)) void* operator new(size_t size) {
  md2_meshopt_heap& heap = md2_meshopt_heap_state;
  size_t bytes = sizeof(md2_meshopt_block) + ((size + 15) & ~(size_t)15);
  if (bytes < size) {
    __builtin_trap();
  }
  md2_meshopt_chunk* chunk = heap.current ? heap.current : heap.first;
  md2_meshopt_chunk* last = chunk;
  while (chunk && (size_t)(chunk->end - chunk->cursor) < bytes) {
    last = chunk;
    chunk = chunk->next;
  }
  if (!chunk) {
    size_t header = (sizeof(md2_meshopt_chunk) + 15) & ~(size_t)15;
    size_t pages = (bytes + header + 65535) / 65536;
    if (pages < md2_meshopt_min_pages) {
      pages = md2_meshopt_min_pages;
    }
    size_t old = __builtin_wasm_memory_grow(0, pages);
    if (old == (size_t)-1) {
      /* Out of memory: no exceptions here, so stop as a failed new must. */
      __builtin_trap();
    }
    char* base = (char*)(old * 65536);
    chunk = (md2_meshopt_chunk*)base;
    chunk->next = 0;
    chunk->cursor = base + header;
    chunk->end = base + pages * 65536;
    while (last && last->next) {
      last = last->next;
    }
    if (last) {
      last->next = chunk;
    } else {
      heap.first = chunk;
    }
  }
  md2_meshopt_block* block = (md2_meshopt_block*)chunk->cursor;
  chunk->cursor += bytes;
  block->chunk = chunk;
  block->below = heap.top;
  block->free = 0;
  heap.top = block;
  heap.current = chunk;
  return block + 1;
}

__attribute__((weak)) void operator delete(void* pointer) noexcept {
  if (!pointer) {
    return;
  }
  md2_meshopt_heap& heap = md2_meshopt_heap_state;
  ((md2_meshopt_block*)pointer - 1)->free = 1;
  while (heap.top && heap.top->free) {
    md2_meshopt_block* block = heap.top;
    block->chunk->cursor = (char*)block;
    heap.top = block->below;
    heap.current = heap.top ? heap.top->chunk : heap.first;
  }
}

__attribute__((weak)) void* operator new[](size_t size) {
  return operator new(size);
}

__attribute__((weak)) void operator delete[](void* pointer) noexcept {
  operator delete(pointer);
}

__attribute__((weak)) void operator delete(void* pointer, size_t) noexcept {
  operator delete(pointer);
}

__attribute__((weak)) void operator delete[](void* pointer, size_t) noexcept {
  operator delete(pointer);
}

#endif /* __cplusplus */
#endif /* __wasm32__ */
