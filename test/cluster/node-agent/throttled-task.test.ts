import { ThrottledTask } from './throttled-task';

describe('ThrottledTask', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('collapses many requests into one run', () => {
    const task = jest.fn();
    const throttled = new ThrottledTask(task, 100, jest.fn(), 'test');
    for (let i = 0; i < 1000; i++) throttled.request();
    jest.advanceTimersByTime(0);
    expect(task).toHaveBeenCalledTimes(1);
  });

  it('runs again no sooner than the minimum interval after the last run', () => {
    const task = jest.fn();
    const throttled = new ThrottledTask(task, 100, jest.fn(), 'test');
    throttled.request();
    jest.advanceTimersByTime(0);
    throttled.request();
    jest.advanceTimersByTime(99);
    expect(task).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(1);
    expect(task).toHaveBeenCalledTimes(2);
  });

  it('reports a failing run and runs again on the next request', () => {
    const task = jest.fn().mockImplementationOnce(() => { throw new Error('boom'); });
    const warn = jest.fn();
    const throttled = new ThrottledTask(task, 10, warn, 'refreshing');
    throttled.request();
    jest.advanceTimersByTime(0);
    expect(warn).toHaveBeenCalledWith('refreshing failed', expect.objectContaining({ message: 'boom' }));
    throttled.request();
    jest.advanceTimersByTime(10);
    expect(task).toHaveBeenCalledTimes(2);
  });

  it('does not run after stop', () => {
    const task = jest.fn();
    const throttled = new ThrottledTask(task, 10, jest.fn(), 'test');
    throttled.request();
    throttled.stop();
    jest.advanceTimersByTime(100);
    throttled.request();
    jest.advanceTimersByTime(100);
    expect(task).not.toHaveBeenCalled();
  });
});
