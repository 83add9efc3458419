import { describe, expect, it } from 'vitest'
import { app } from '../../../examples/theme/app.js'
import { createUiTestHandle } from '../../../src/testing/app-test.js'

describe('examples/theme', () => {
  it('sets a theme and both pages run without errors', async () => {
    expect(app.settings.theme).toMatchObject({ primaryColor: '#0f766e', baseRadius: '12px' })
    const form = await createUiTestHandle(app).run()
    expect(form.exception).toEqual([])
    expect(form.widget('segmentedControl', 'condition').props.value).toEqual([2])
    form.widget('feedback', 'rating').setValue(4)
    await form.run()
    expect(form.success[0]!.value).toContain('5/5')
    const media = await createUiTestHandle(app, { target: '/media' }).run()
    expect(media.exception).toEqual([])
    expect(media.get('audio')).toHaveLength(1)
    expect(media.get('pdf')[0]!.props.height).toBe(320)
  })
})
