import { expandVariableReferences } from './container-env';

describe('expandVariableReferences', () => {
  it('replaces known references, keeps unknown ones and unescapes $$', () => {
    expect(expandVariableReferences('-h $(POD_IP) $(MISSING) $$(POD_IP)', { POD_IP: '127.10.1.1' })).toBe('-h 127.10.1.1 $(MISSING) $(POD_IP)');
  });
});
