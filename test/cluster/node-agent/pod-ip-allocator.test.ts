import { PodIpAllocator } from './pod-ip-allocator';

describe('PodIpAllocator', () => {
  it('hands out fresh addresses round robin and never one in use', () => {
    const allocator = new PodIpAllocator('127.10.');
    const first = allocator.allocate();
    const second = allocator.allocate();
    allocator.release(first);
    expect([first, second, allocator.allocate()]).toEqual(['127.10.1.1', '127.10.1.2', '127.10.1.3']);
  });
});

describe('PodIpAllocator above a Service range', () => {
  it('starts at the given third octet so pod IPs never fall inside the Service range', () => {
    const allocator = new PodIpAllocator('127.10.', 16);
    expect([allocator.allocate(), allocator.allocate()]).toEqual(['127.10.16.1', '127.10.16.2']);
  });
});
