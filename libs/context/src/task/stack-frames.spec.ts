import { findStackFrames } from './stack-frames';

describe('findStackFrames', () => {
  it('reads Python tracebacks, innermost frame last', () => {
    const frames = findStackFrames(
      ['Traceback (most recent call last):', '  File "<stdin>", line 1, in <module>', '  File "/usr/lib/python3/site-packages/sympy/core/expr.py", line 124, in __eq__', '    other = sympify(other)', '  File "./sympy/core/sympify.py", line 385, in sympify', 'ValueError: x'].join('\n'),
    );
    expect(frames.map(({ path, line, symbol, depth }) => ({ path, line, symbol, depth }))).toEqual([
      { path: '<stdin>', line: 1, symbol: '<module>', depth: 2 },
      { path: '/usr/lib/python3/site-packages/sympy/core/expr.py', line: 124, symbol: '__eq__', depth: 1 },
      { path: './sympy/core/sympify.py', line: 385, symbol: 'sympify', depth: 0 },
    ]);
  });

  it("reads IPython's two formats and pytest's", () => {
    const old = findStackFrames('/venv/site-packages/sympy/printing/mathml.py in mathml(expr, **settings)\n    442 def mathml(expr):\n--> 444     return MathMLPrinter(settings).doprint(expr)\n');
    expect(old[0]).toMatchObject({ path: '/venv/site-packages/sympy/printing/mathml.py', line: 444, symbol: 'mathml' });
    const linked = findStackFrames('[c:\\Users\\me\\site-packages\\seaborn\\axisgrid.py](file:///C:/Users/me/site-packages/seaborn/axisgrid.py) in pairplot(data, hue)\n-> 2144 grid.map_diag(histplot)\n');
    expect(linked[0]).toMatchObject({ path: 'c:\\Users\\me\\site-packages\\seaborn\\axisgrid.py', line: 2144, symbol: 'pairplot' });
    const current = findStackFrames('File ~/code/seaborn/seaborn/_core/plot.py:265, in Plot._repr_png_(self)\n');
    expect(current[0]).toMatchObject({ path: '~/code/seaborn/seaborn/_core/plot.py', line: 265, symbol: 'Plot._repr_png_' });
    const pytest = findStackFrames('sympy/core/expr.py:124: in __eq__\n    other = sympify(other)\n');
    expect(pytest[0]).toMatchObject({ path: 'sympy/core/expr.py', line: 124, symbol: '__eq__' });
  });

  it('reads JavaScript, Java, Go and Rust frames, innermost first', () => {
    const js = findStackFrames('TypeError: x is undefined\n    at parseConfig (/app/src/config.ts:12:7)\n    at main (/app/src/index.js:3:1)\n');
    expect(js.map(({ path, line, symbol, depth }) => ({ path, line, symbol, depth }))).toEqual([
      { path: '/app/src/config.ts', line: 12, symbol: 'parseConfig', depth: 0 },
      { path: '/app/src/index.js', line: 3, symbol: 'main', depth: 1 },
    ]);
    const java = findStackFrames('java.lang.NullPointerException\n\tat com.acme.shop.Cart.total(Cart.java:42)\n\tat com.acme.shop.Main.main(Main.java:7)\n');
    expect(java[0]).toMatchObject({ path: 'com/acme/shop/Cart.java', line: 42, symbol: 'Cart.total', depth: 0 });
    const go = findStackFrames('panic: boom\n\ngoroutine 1 [running]:\nmain.(*Server).Start(0xc000010000)\n\t/home/me/app/server.go:27 +0x1d\n');
    expect(go[0]).toMatchObject({ path: '/home/me/app/server.go', line: 27, symbol: 'Server.Start' });
    const rust = findStackFrames("thread 'main' panicked at 'index out of bounds', src/parser.rs:88:9\n");
    expect(rust[0]).toMatchObject({ path: 'src/parser.rs', line: 88 });
  });

  it('frames close together are one trace; a trace far below another is counted on its own', () => {
    const near = findStackFrames(['  File "a.py", line 1, in f', '  File "b.py", line 2, in g', 'During handling of the above exception, another exception occurred:', '  File "c.py", line 3, in h'].join('\n'));
    expect(near.map((frame) => [frame.path, frame.trace, frame.depth])).toEqual([['a.py', 0, 2], ['b.py', 0, 1], ['c.py', 0, 0]]);
    const far = findStackFrames(['  File "a.py", line 1, in f', '  File "b.py", line 2, in g', 'x'.repeat(2000), '  File "c.py", line 3, in h'].join('\n'));
    expect(far.map((frame) => [frame.path, frame.trace, frame.depth])).toEqual([['a.py', 0, 1], ['b.py', 0, 0], ['c.py', 1, 0]]);
  });
});
